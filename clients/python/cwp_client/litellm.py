"""`PlannerGuardrail`: the planner as a LiteLLM proxy guardrail, so agents behind the proxy are
planned without a change to their code.

The proxy builds the class from its `config.yaml` (`litellm_params.guardrail:
cwp_client.litellm.PlannerGuardrail`, `mode: pre_call`, `default_on: true`) and calls
`async_pre_call_hook` before each model call. The hook sends the request's transcript to
`POST /v1/window/plan` under the `fit` strategy, the budget being the model's input limit, and
puts the returned window in place of the transcript.

What it decides, and why:
- Routes by `call_type`: Chat Completions (`acompletion`/`completion`, format `openai`), Anthropic
  Messages (`anthropic_messages`, `system` beside the messages) and Responses (`aresponses`, when
  `input` is a list; `instructions` is its system). A string `input` has nothing to cut and a
  `previous_response_id` continues a conversation the provider holds, so both pass through, as
  does every other call type.
- The budget: the `max_input_tokens` option, else the input limit of the model behind the alias
  (the proxy's router names the deployment; LiteLLM's model table knows its limit). The reserve:
  the reply's room, the tool schemas (the service's `estimate`: a quarter of the bytes of their
  compact JSON, rounded up) and the `reserve_tokens` option.
- Records: the planner is stateless, so the guardrail keeps what a client would, each
  conversation's last two non-null records, in the cache the proxy hands the hook (in memory per
  worker, or Redis), for `record_ttl_seconds`. A conversation is named by the client's
  `litellm_session_id`, else by a hash of the alias, the system prompt and the first user message;
  two conversations that share those share a record, which costs a cache miss (records are hints),
  never a wrong window.
- Never the reason a request fails: an unreachable or slow planner, an error answer, or a window
  that would break the route's tool pairing leaves the request as it came, the cause logged at
  most once a minute. Options are checked when the proxy loads the config, so a bad one stops the
  proxy at start-up (a `GuardrailConfigError`: LiteLLM swallows a `ValueError` or `TypeError`
  there and starts without the guardrail) instead of every request passing through unplanned.
  `recall` and `summarize` are refused there: a gateway can neither answer a recall call nor
  write a summary.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import time
from collections.abc import Callable, Mapping
from typing import Any

try:
    from litellm.integrations.custom_guardrail import CustomGuardrail
except ImportError as missing:  # pragma: no cover - exercised without the extra installed
    raise ImportError(
        "cwp_client.litellm needs LiteLLM: pip install 'context-window-planner-client[litellm]'"
    ) from missing

from cwp_client.generated.models.calibration import Calibration
from cwp_client.generated.models.fit_strategy_overflow import FitStrategyOverflow
from cwp_client.generated.models.plan_cap import PlanCap
from cwp_client.generated.models.plan_clear import PlanClear
from cwp_client.planner import AsyncPlanner

logger = logging.getLogger("cwp_client.litellm")

DEFAULT_TIMEOUT = 2.0
DEFAULT_RECORD_TTL_SECONDS = 3600
# How often one cause of a pass-through is logged: a planner that is down fails every request.
LOG_INTERVAL_SECONDS = 60.0

REFUSED = {
    "recall": "a gateway cannot answer the model's recall calls",
    "summarize": "a gateway cannot write a summary",
}
TOKENIZERS = ("o200k_base", "cl100k_base", "estimate")


class GuardrailConfigError(Exception):
    """A guardrail option the planner would refuse, or one a gateway cannot serve. Not a
    `ValueError` or `TypeError`: LiteLLM starts without a guardrail whose constructor raises one
    of those, leaving every request unplanned; this one stops the proxy at start-up."""


class _Options:
    """The guardrail's own keys of the config, checked as the planner's request schema would."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        for key, why in REFUSED.items():
            if key in params:
                raise GuardrailConfigError(
                    f"PlannerGuardrail: option {key!r} is not supported ({why})"
                )
        api_base = params.get("api_base")
        if not isinstance(api_base, str) or not api_base:
            raise GuardrailConfigError(
                "PlannerGuardrail: option 'api_base' (the planner's URL) is required"
            )
        self.api_base = api_base
        api_key = params.get("api_key")
        if api_key is not None and not isinstance(api_key, str):
            raise GuardrailConfigError("PlannerGuardrail: option 'api_key' must be a string")
        self.api_key = api_key
        self.timeout = _number(params, "timeout", DEFAULT_TIMEOUT)
        self.record_ttl_seconds = _integer(
            params, "record_ttl_seconds", DEFAULT_RECORD_TTL_SECONDS, minimum=1
        )
        self.max_input_tokens = _integer(params, "max_input_tokens", None, minimum=1)
        self.reserve_tokens = _integer(params, "reserve_tokens", 0, minimum=0)
        self.target_tokens = _integer(params, "target_tokens", None, minimum=1)
        self.keep_recent_turns = _integer(params, "keep_recent_turns", None, minimum=1)
        overflow = params.get("overflow")
        if overflow is not None:
            _check("overflow", overflow, lambda value: FitStrategyOverflow(value))
        self.overflow = overflow
        # The plan request's own keys, sent as written once checked.
        self.plan_options: dict[str, Any] = {}
        keep = _integer(params, "keep_last_tool_results", None, minimum=0)
        if keep is not None:
            self.plan_options["keep_last_tool_results"] = keep
        for key, model in (("clear", PlanClear), ("cap", PlanCap), ("calibration", Calibration)):
            value = params.get(key)
            if value is not None:
                _check_model(key, value, model.from_dict)
                self.plan_options[key] = value
        tokenizer = params.get("tokenizer")
        if tokenizer is not None:
            if tokenizer not in TOKENIZERS:
                raise GuardrailConfigError(
                    f"PlannerGuardrail: option 'tokenizer' must be one of {', '.join(TOKENIZERS)}"
                )
            self.plan_options["tokenizer"] = tokenizer
        detect_frames = params.get("detect_frames")
        if detect_frames is not None:
            if not isinstance(detect_frames, bool):
                raise GuardrailConfigError(
                    "PlannerGuardrail: option 'detect_frames' must be true or false"
                )
            self.plan_options["detect_frames"] = detect_frames
        frame_tags = params.get("frame_tags")
        if frame_tags is not None:
            if not isinstance(frame_tags, list) or not all(
                isinstance(tag, str) and 0 < len(tag) <= 64 for tag in frame_tags
            ):
                raise GuardrailConfigError(
                    "PlannerGuardrail: option 'frame_tags' must be a list of element names"
                )
            self.plan_options["frame_tags"] = frame_tags


def _integer(params: Mapping[str, Any], key: str, default: int | None, *, minimum: int) -> Any:
    value = params.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise GuardrailConfigError(
            f"PlannerGuardrail: option {key!r} must be an integer >= {minimum}"
        )
    return value


def _number(params: Mapping[str, Any], key: str, default: float) -> float:
    value = params.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise GuardrailConfigError(
            f"PlannerGuardrail: option {key!r} must be a number of seconds above 0"
        )
    return float(value)


def _check(key: str, value: Any, parse: Callable[[Any], Any]) -> None:
    try:
        parse(value)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise GuardrailConfigError(
            f"PlannerGuardrail: option {key!r} is invalid: {value!r}"
        ) from error


def _check_model(key: str, value: Any, from_dict: Callable[[Any], Any]) -> None:
    """`value` read by the generated model: a missing key, a wrong enum value or a key the
    schema does not have (absent from the model's own `to_dict`) is refused."""
    if not isinstance(value, dict):
        raise GuardrailConfigError(f"PlannerGuardrail: option {key!r} must be a mapping")
    try:
        known = from_dict(value).to_dict()
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise GuardrailConfigError(
            f"PlannerGuardrail: option {key!r} is invalid: {value!r}"
        ) from error
    unknown = sorted(set(value) - set(known))
    if unknown:
        raise GuardrailConfigError(
            f"PlannerGuardrail: option {key!r} has unknown keys: {', '.join(unknown)}"
        )


def estimate_tokens(value: Any) -> int:
    """The service's `estimate` of `value`'s compact JSON: ceil(UTF-8 bytes / 4)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / 4)


class _Route:
    """Where a call type keeps its transcript and reply room."""

    def __init__(
        self, fmt: str, transcript: str, system: str | None, reply_keys: tuple[str, ...]
    ) -> None:
        self.format = fmt
        self.transcript = transcript
        self.system = system
        self.reply_keys = reply_keys


CHAT = _Route("openai", "messages", None, ("max_tokens", "max_completion_tokens"))
ROUTES: dict[str, _Route] = {
    "acompletion": CHAT,
    "completion": CHAT,
    "anthropic_messages": _Route("anthropic", "messages", "system", ("max_tokens",)),
    "aresponses": _Route("responses", "input", "instructions", ("max_output_tokens",)),
}


class PlannerGuardrail(CustomGuardrail):  # type: ignore[misc]
    """Plans each model call's window before the proxy sends it (see the module's docstring)."""

    def __init__(self, **kwargs: Any) -> None:
        self.options = _Options(kwargs)
        own = {
            key: kwargs[key]
            for key in ("guardrail_name", "event_hook", "default_on")
            if kwargs.get(key) is not None
        }
        super().__init__(**own)
        self._planner: AsyncPlanner | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._warned_models: set[str] = set()
        self._logged_at: dict[str, float] = {}

    # ---- failing open, logged sparingly
    def _pass(self, cause: str, detail: str) -> None:
        now = time.monotonic()
        last = self._logged_at.get(cause)
        if last is None or now - last >= LOG_INTERVAL_SECONDS:
            self._logged_at[cause] = now
            logger.warning("context window planner: request sent unplanned (%s): %s", cause, detail)

    def _planner_client(self) -> AsyncPlanner:
        # Made on first use, inside the proxy's serving loop rather than at config load, and
        # again should the hook be awaited on another loop (httpx's pool is bound to its loop).
        loop = asyncio.get_running_loop()
        if self._planner is None or self._loop is not loop:
            self._loop = loop
            headers = (
                {"Authorization": f"Bearer {self.options.api_key}"} if self.options.api_key else {}
            )
            self._planner = AsyncPlanner(
                self.options.api_base, timeout=self.options.timeout, retry=None, headers=headers
            )
        return self._planner

    async def async_pre_call_hook(
        self, user_api_key_dict: Any, cache: Any, data: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        try:
            return await self._plan(cache, data, str(getattr(call_type, "value", call_type)))
        except Exception as error:
            self._pass(f"unexpected {type(error).__name__}", str(error))
            return None

    async def _plan(
        self, cache: Any, data: dict[str, Any], call_type: str
    ) -> dict[str, Any] | None:
        route = ROUTES.get(call_type)
        if route is None:
            return None
        transcript = data.get(route.transcript)
        if not isinstance(transcript, list) or not transcript:
            return None
        if route.format == "responses" and data.get("previous_response_id"):
            return None
        model = data.get("model")
        alias = model if isinstance(model, str) else ""
        max_tokens = self.options.max_input_tokens or _input_limit(alias)
        if max_tokens is None:
            if alias not in self._warned_models:
                self._warned_models.add(alias)
                logger.warning(
                    "context window planner: no input limit known for model %r: its requests "
                    "are sent unplanned (set the guardrail's max_input_tokens)",
                    alias,
                )
            return None
        system = data.get(route.system) if route.system else None
        strategy: dict[str, Any] = {
            "kind": "fit",
            "max_tokens": max_tokens,
            "reserve_tokens": self._reserve(route, data),
        }
        for key in ("target_tokens", "keep_recent_turns", "overflow"):
            value = getattr(self.options, key)
            if value is not None:
                strategy[key] = value
        if "target_tokens" in strategy and strategy["target_tokens"] > max_tokens:
            strategy["target_tokens"] = max_tokens
        key = _conversation_key(data, alias, route, transcript, system)
        records = await _records(cache, key)
        body: dict[str, Any] = {
            "format": route.format,
            "strategy": strategy,
            **self.options.plan_options,
        }
        if system is not None:
            body["system"] = system
        if records:
            body["prior_records"] = records
        try:
            plan = await asyncio.wait_for(
                self._planner_client().plan(transcript, **body), self.options.timeout
            )
        except TimeoutError:
            self._pass(
                "timeout", f"no answer from {self.options.api_base} in {self.options.timeout} s"
            )
            return None
        except Exception as error:
            self._pass(type(error).__name__, str(error))
            return None
        window = plan.raw.get("window")
        if not isinstance(window, list):
            self._pass("no window", "the planner's answer has no window")
            return None
        problem = pairing_problem(route.format, transcript, window)
        if problem is not None:
            self._pass("invalid window", problem)
            return None
        record = plan.raw.get("record")
        if record is not None:
            await cache.async_set_cache(
                key, [*records, record][-2:], ttl=self.options.record_ttl_seconds
            )
        data[route.transcript] = window
        return data

    def _reserve(self, route: _Route, data: Mapping[str, Any]) -> int:
        reply = next((data[key] for key in route.reply_keys if isinstance(data.get(key), int)), 0)
        tools = data.get("tools")
        schemas = estimate_tokens(tools) if tools else 0
        return int(reply) + schemas + int(self.options.reserve_tokens)


async def _records(cache: Any, key: str) -> list[Any]:
    try:
        held = await cache.async_get_cache(key)
    except Exception:
        return []
    return list(held)[-2:] if isinstance(held, list) else []


def _input_limit(alias: str) -> int | None:
    """The input limit of the model that serves `alias`: the deployment's own `model_info`,
    else LiteLLM's model table for its model; None when neither knows."""
    import litellm

    candidates: list[tuple[str, str | None]] = []
    try:
        from litellm.proxy.proxy_server import llm_router
    except Exception:
        llm_router = None
    if llm_router is not None:
        for deployment in llm_router.get_model_list(model_name=alias) or []:
            info = deployment.get("model_info") or {}
            if isinstance(info.get("max_input_tokens"), int):
                return int(info["max_input_tokens"])
            params = deployment.get("litellm_params") or {}
            if isinstance(params.get("model"), str):
                candidates.append((params["model"], params.get("custom_llm_provider")))
    candidates.append((alias, None))
    for name, provider in candidates:
        try:
            info = litellm.get_model_info(model=name, custom_llm_provider=provider)
        except Exception:
            continue
        limit = info.get("max_input_tokens") or info.get("max_tokens")
        if isinstance(limit, int) and limit > 0:
            return limit
    return None


def _session_id(data: Mapping[str, Any]) -> str | None:
    """The session id the client sent (LiteLLM puts it at the body's root from its headers or
    metadata); None for none, or for one the proxy made up (`missing_session_id: generate`),
    which is new on every request."""
    value = data.get("litellm_session_id")
    if not isinstance(value, str) or not value:
        return None
    for holder in (data.get("metadata"), data.get("litellm_metadata")):
        if isinstance(holder, Mapping) and holder.get("litellm_session_id_generated"):
            return None
    return value


def _conversation_key(
    data: Mapping[str, Any], alias: str, route: _Route, transcript: list[Any], system: Any
) -> str:
    session = _session_id(data)
    if session is not None:
        return f"cwp-records:session:{session}"
    if route.format == "openai":
        system = [
            m
            for m in transcript
            if isinstance(m, dict) and m.get("role") in ("system", "developer")
        ][:1]
    first_user = next(
        (m for m in transcript if isinstance(m, dict) and m.get("role") == "user"), None
    )
    text = json.dumps([alias, system, first_user], sort_keys=True, separators=(",", ":"))
    return "cwp-records:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# ---- the pairing rules a window must pass (the formats' "must never produce")
def _calls_and_results(fmt: str, messages: list[Any]) -> tuple[list[str], list[tuple[int, str]]]:
    """(call ids, (position, call id) of each result), in the order met."""
    calls: list[str] = []
    results: list[tuple[int, str]] = []
    for position, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        if fmt == "openai":
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    calls.append(call["id"])
            if message.get("role") == "tool" and isinstance(message.get("tool_call_id"), str):
                results.append((position, message["tool_call_id"]))
        elif fmt == "anthropic":
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") in ("tool_use", "server_tool_use") and isinstance(
                    block.get("id"), str
                ):
                    calls.append(block["id"])
                elif block.get("type") == "tool_result" and isinstance(
                    block.get("tool_use_id"), str
                ):
                    results.append((position, block["tool_use_id"]))
        else:
            kind = str(message.get("type", ""))
            call_id = message.get("call_id")
            if isinstance(call_id, str):
                if kind.endswith("_output"):
                    results.append((position, call_id))
                elif kind.endswith("_call"):
                    calls.append(call_id)
    return calls, results


def _leading_role(fmt: str, messages: list[Any]) -> str | None:
    for message in messages:
        if not isinstance(message, dict):
            return None
        role = message.get("role")
        if fmt == "responses" and role is None:
            kind = str(message.get("type", ""))
            return "tool" if kind.endswith("_output") else "assistant" if kind else None
        if role in ("system", "developer"):
            continue
        return str(role) if role is not None else None
    return None


def pairing_problem(fmt: str, transcript: list[Any], window: list[Any]) -> str | None:
    """Why `window` would be refused by the provider where `transcript` was not, or None."""
    in_calls, in_results = _calls_and_results(fmt, transcript)
    calls, results = _calls_and_results(fmt, window)
    paired_in = {call for _, call in in_results} & set(in_calls)
    window_calls = set(calls)
    for _, call in results:
        if call in paired_in and call not in window_calls:
            return f"a tool result ({call}) whose call is not in the window"
    kept_results = {call for _, call in results}
    for call in calls:
        if call in paired_in and call not in kept_results:
            return f"a tool call ({call}) whose result was removed"
    opening = _leading_role(fmt, transcript)
    first = _leading_role(fmt, window)
    if opening not in ("assistant", "tool") and first in ("assistant", "tool"):
        return f"the window opens with an {first} message"
    return None
