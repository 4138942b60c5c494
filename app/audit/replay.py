"""The replay: a recorded run's steps planned again, each configuration playing the agent.

At every model call of a recorded transcript (a *step*), the messages before it are planned with
each configuration, and the window is judged: the evidence it kept (`app.audit.evidence`), its
tokens, whether a provider would refuse it (`app.audit.validity`), and what it costs next to the
previous step's window under a prompt cache. The service's configurations are planned by the
plan use case itself (`app.service.plan`), in process, or over HTTP against a running service; the
peers through `app.audit.peers`.

The budget of a file is fixed for all its steps, as a model's limit is, and each configuration
plays the agent: step k of a file is sent as `iteration` k, with the non-null records of its own
last two plans of that file as `prior_records`. A configuration with `summarize` also plays the
client sessions' summary protocol with the scripted summarizer (`app.audit.summarizer`): its
summary requests are model requests the agent makes, so they are billed, against the window sent
before them, beside the windows. docs/quality.md describes every figure.

The budget is the model's limit, so a window whose total (its tokens, plus the reserve a `fit`
configuration keeps for what the call adds) is over it is one a provider refuses. Whether the
planner could have avoided it is measured, not assumed: the **floor** of a step is the window the
same request reaches at a limit and target of one token (every stage of `fit` run to its end), so
what stays there is what can never leave. A step whose floor is over the budget is a floor step,
owed to the transcript, not to the plan; a service `fit` configuration over the budget anywhere
else is a broken guarantee. The file's floor steps come from the default `fit` request at every
step; a configuration's own floor is asked only where it is over the budget, which keeps the
audit one plan per step where nothing is wrong.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.client import HTTPConnection, HTTPException, HTTPSConnection, RemoteDisconnected
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import orjson

from app.audit import evidence as ev
from app.audit.peers import PEER_FUNCTIONS, OpenAIForm, PeerSkipped, openai_form
from app.audit.summarizer import (
    kept_entries,
    request_messages,
    request_system,
    scripted_summary,
)
from app.audit.validity import window_violations
from app.core.messages import Message
from app.core.tokens import TokenCounter, message_tokens, text_message_tokens
from app.errors import InvalidRequest
from app.formats import Dialect
from app.service.plan import plan_request
from app.service.plan_input import read_plan_input

MIN_BUDGET = 200
DEFAULT_FRACTION = 0.35
CACHED_SHARE = 0.1  # a cached prefix token billed at a tenth of an uncached one
PRIOR_RECORDS = 2

DEFAULT_CONFIGS: dict[str, Any] = {
    "fit": {"strategy": {"kind": "fit", "max_tokens": "{B}"}},
    "fit, no result pins": {
        "strategy": {"kind": "fit", "max_tokens": "{B}"},
        "keep_last_tool_results": 0,
    },
    # Old results the model has read sent as placeholders first, removal only for the rest.
    "fit + clear": {"strategy": {"kind": "fit", "max_tokens": "{B}"}, "clear": {}},
    # The span removed at the front summarized by the scripted summarizer, at the service's
    # default `min_span_tokens`.
    "fit + summaries": {"strategy": {"kind": "fit", "max_tokens": "{B}"}, "summarize": {}},
    # `fit + clear` with the recall tool declared: the texts the service writes name the tool,
    # and what is not kept may still be recallable by the ref the window shows.
    "fit + clear + recall": {
        "strategy": {"kind": "fit", "max_tokens": "{B}"},
        "clear": {},
        "recall": {},
    },
    "peer: LangChain trim_messages": {"peer": "trim"},
    "peer: sliding window": {"peer": "sliding"},
}
# The request whose window at a limit of one token is a file's floor (module docstring).
FLOOR_OF = "fit"


class AuditError(Exception):
    """A file the audit cannot read; the message says why."""


@dataclass(frozen=True)
class AuditFile:
    """A transcript read once: its callers as sent, its core messages, and its steps."""

    name: str
    dialect: Dialect
    system: Any
    system_text: str | None
    callers: list[Any]
    messages: list[Message]
    steps: list[int]

    def prefix(self, step: int) -> list[Message]:
        """The core messages of caller messages 0 … step−1."""
        return [m for i, m in enumerate(self.messages) if source_of(m, i) < step]

    def turn_at(self, step: int) -> list[Message]:
        """The assistant turn caller message `step` begins: its core messages up to the next
        message of another role."""
        turn: list[Message] = []
        for index, message in enumerate(self.messages):
            if source_of(message, index) < step:
                continue
            if message.role != "assistant":
                break
            turn.append(message)
        return turn


def source_of(message: Message, index: int) -> int:
    return index if message.source is None else message.source


def read_file(path: Path) -> AuditFile:
    """A file as the audit reads it (AuditError naming what is wrong): a JSON array of messages,
    an object `{"format"?, "system"?, "messages"}`, or JSONL, one message per line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise AuditError(str(error)) from error
    try:
        value: Any = orjson.loads(text)
    except orjson.JSONDecodeError:
        try:
            value = [orjson.loads(line) for line in text.splitlines() if line.strip()]
        except orjson.JSONDecodeError as error:
            raise AuditError(f"neither JSON nor JSONL: {error}") from error
    if isinstance(value, list):
        value = {"messages": value}
    if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
        raise AuditError("expected an array of messages or an object with `messages`")
    body = {"format": value.get("format", "auto"), "messages": value["messages"]}
    if value.get("system") is not None:
        body["system"] = value["system"]
    try:
        read = read_plan_input(body, len(value["messages"]) + 1)
    except InvalidRequest as error:
        raise AuditError(f"not a transcript the service reads: {error}") from error
    messages = read.messages
    return AuditFile(
        name=str(path),
        dialect=read.dialect,
        system=body.get("system"),
        system_text=read.dialect.system_prompt_text(body.get("system")),
        callers=list(read.callers),
        messages=messages,
        steps=steps_of(messages),
    )


def steps_of(messages: Sequence[Message]) -> list[int]:
    """The caller indices t ≥ 2 at which an assistant turn begins: an assistant message (a
    Responses run counts as one) right after a user or result message."""
    steps = []
    for index in range(1, len(messages)):
        before, message = messages[index - 1], messages[index]
        if message.role == "assistant" and before.role in ("user", "tool"):
            start = source_of(message, index)
            if start >= 2:
                steps.append(start)
    return steps


def tokens_of(messages: Sequence[Message], system: str | None, count: TokenCounter) -> int:
    total = sum(message_tokens(message, count) for message in messages)
    return total + (0 if system is None else text_message_tokens(system, count))


def budget_of(file: AuditFile, fraction: float, count: TokenCounter) -> int:
    """`max(200, ceil(F × tokens(P)))`, P the prefix of the file's last step, system included."""
    if not file.steps:
        return MIN_BUDGET
    prefix = file.prefix(file.steps[-1])
    return max(MIN_BUDGET, math.ceil(fraction * tokens_of(prefix, file.system_text, count)))


def substitute(value: Any, budget: int) -> Any:
    """`value` with every string `"{B}"` replaced by the budget."""
    if value == "{B}":
        return budget
    if isinstance(value, dict):
        return {key: substitute(item, budget) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute(item, budget) for item in value]
    return value


def fit_strategy(config: Any) -> dict[str, Any] | None:
    """The configuration's `fit` strategy object, or None (a peer, another strategy)."""
    strategy = config.get("strategy") if isinstance(config, dict) else None
    if isinstance(strategy, dict) and strategy.get("kind") == "fit":
        return strategy
    return None


def reserve_of(config: Any, budget: int) -> int:
    """What the configuration's next call adds outside the window: its `fit` reserve, or 0."""
    strategy = fit_strategy(substitute(config, budget))
    reserve = 0 if strategy is None else strategy.get("reserve_tokens", 0)
    return reserve if isinstance(reserve, int) else 0


def floor_config(config: dict[str, Any]) -> dict[str, Any]:
    """The same request at a limit and a target of one token: every stage runs to its end, so
    its window is what can never leave."""
    strategy = dict(config["strategy"])
    strategy.update(max_tokens=1, target_tokens=1)
    return {**config, "strategy": strategy}


# ---- planning -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Planned:
    """What a configuration's plan gave: the window as sent, whether it engaged, the record to
    send back, how long the plan took, and the answer's `summary_request` (None when none)."""

    window: list[Any]
    engaged: bool
    record: Any
    plan_ms: float
    summary_request: Any = None


class Planner(Protocol):
    def __call__(self, body: dict[str, Any]) -> Planned: ...


def plan_in_process(body: dict[str, Any]) -> Planned:
    """The service's plan use case on a parsed body, as the route runs it (no HTTP)."""
    started = time.perf_counter()
    content = plan_request(body, len(body["messages"]) + 1).content
    elapsed = (time.perf_counter() - started) * 1000
    record = content["record"]
    # The record as the answer writes it, so a plan here reads back what a client would send.
    sent_back = None if record is None else orjson.loads(orjson.dumps(record))
    return Planned(
        content["window"], content["engaged"], sent_back, elapsed, content.get("summary_request")
    )


def http_planner(url: str) -> Planner:
    """A planner posting each body to a running service's `POST /v1/window/plan`.

    It speaks HTTP with the standard library's client, over one kept-alive connection (opened
    again once when the service closed it), so that `--url` works wherever the package is
    installed, its extras or not."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AuditError(f"{url}: not an http:// or https:// address")
    path = parts.path.rstrip("/") + "/v1/window/plan"
    connect = HTTPSConnection if parts.scheme == "https" else HTTPConnection
    connection: list[HTTPConnection] = []

    def post(data: bytes) -> tuple[int, bytes]:
        if not connection:
            connection.append(connect(parts.hostname or "", parts.port, timeout=60))
        try:
            connection[0].request("POST", path, data, {"Content-Type": "application/json"})
            answer = connection[0].getresponse()
            return answer.status, answer.read()
        except BaseException:
            connection.pop().close()
            raise

    def planned(body: dict[str, Any]) -> Planned:
        data = orjson.dumps(body)
        started = time.perf_counter()
        try:
            try:
                status, received = post(data)
            except (RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                status, received = post(data)  # a kept-alive connection the service closed
        except (OSError, HTTPException) as error:
            raise AuditError(f"{url}: {error}") from error
        elapsed = (time.perf_counter() - started) * 1000
        if status != 200:
            text = received[:300].decode("utf-8", "replace")
            raise AuditError(f"the service answered {status}: {text}")
        content = orjson.loads(received)
        return Planned(
            content["window"],
            content["engaged"],
            content.get("record"),
            elapsed,
            content.get("summary_request"),
        )

    return planned


# ---- figures ------------------------------------------------------------------------------------


@dataclass
class StepFigures:
    file: str
    step: int
    index: int  # k, 1-based within the file
    tokens: int
    evidence: int
    kept: int
    engaged: bool
    cache_miss: bool
    billed: float
    invalid: bool
    plan_ms: float
    # The window's total as judged against the budget: `tokens` plus the configuration's
    # reserve; the file's budget; and, only where the total is over it and the configuration is
    # a service `fit` one, the total of its own floor at this step.
    total: int = 0
    budget: int = 0
    floor: int | None = None
    # The summary request the step made (0 when none): its tokens, the part of them that is a
    # prefix of the window sent before it (what a prompt cache serves), and what it is billed.
    summary_tokens: int = 0
    summary_cached: int = 0
    summary_billed: float = 0.0
    summary_request: bool = False
    # With recall on, the evidence not kept whose first result the window still names by its
    # id; None for a configuration without recall.
    recallable: int | None = None


@dataclass
class ConfigFigures:
    """The figures of one configuration over every step of every file."""

    name: str
    peer: str | None
    # A service configuration whose strategy is `fit`: judged against the floor.
    fit: bool = False
    # A service configuration with `recall` on: its evidence recallable is measured.
    recall: bool = False
    series: list[StepFigures] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        evidence = sum(s.evidence for s in self.series)
        kept = sum(s.kept for s in self.series)
        requests = [s for s in self.series if s.summary_request]
        summary_tokens = sum(s.summary_tokens for s in requests)
        over = [s for s in self.series if s.total > s.budget]
        recallable = sum(s.recallable or 0 for s in self.series)
        measured = self.recall and evidence > 0
        return {
            "steps": len(self.series),
            "engaged_steps": sum(s.engaged for s in self.series),
            "evidence": evidence,
            "kept": kept,
            "evidence_kept": None if evidence == 0 else kept / evidence,
            "recallable": recallable if self.recall else None,
            "evidence_recallable": recallable / evidence if measured else None,
            "evidence_kept_or_recallable": (kept + recallable) / evidence if measured else None,
            "tokens_sent": sum(s.tokens for s in self.series),
            "billed_tokens": round(sum(s.billed + s.summary_billed for s in self.series)),
            "cache_misses": sum(s.cache_miss for s in self.series),
            "invalid_windows": sum(s.invalid for s in self.series),
            "over_budget_steps": len(over),
            "over_budget_max_ratio": max((s.total / s.budget for s in over), default=None),
            "over_budget_not_floor": len(self.not_floor()) if self.fit else None,
            "plan_ms_median": statistics.median(s.plan_ms for s in self.series)
            if self.series
            else None,
            "summary_requests": len(requests),
            "summary_tokens": summary_tokens,
            "summary_cached_share": None
            if not summary_tokens
            else sum(s.summary_cached for s in requests) / summary_tokens,
        }

    def not_floor(self) -> list[StepFigures]:
        """The steps over the budget whose own floor is not: the plan could have met it."""
        return [
            s for s in self.series if s.total > s.budget and s.floor is not None
            and s.floor <= s.budget
        ]  # fmt: skip


@dataclass(frozen=True)
class SummaryFigures:
    """A step's summary request as the audit judges it (all 0 when the step made none)."""

    tokens: int = 0
    cached: int = 0
    billed: float = 0.0
    invalid: bool = False


@dataclass(frozen=True)
class Window:
    """A window judged: its messages as sent, the core messages each one shows, and the system
    prompt it carries."""

    wire: list[Any]
    core: list[list[Message]]  # per sent message, the core messages read from it
    system: str | None


def billed(window: Window, previous: Window | None, count: TokenCounter) -> tuple[bool, float]:
    """(a cache miss, the billed tokens): the longest common prefix of messages with the previous
    step's window (the system prompt first, equal or not) at a tenth, the rest in full."""
    miss, cached, total = shared_prefix(window, previous, count)
    return miss, CACHED_SHARE * cached + (total - cached)


def shared_prefix(
    window: Window, previous: Window | None, count: TokenCounter
) -> tuple[bool, int, int]:
    """(a cache miss, the tokens of the longest common prefix of messages with `previous`, the
    system prompt first when equal, and all of `window`'s tokens)."""
    costs = [sum(message_tokens(m, count) for m in core) for core in window.core]
    system = 0 if window.system is None else text_message_tokens(window.system, count)
    total = system + sum(costs)
    if previous is None or previous.system != window.system:
        return True, 0, total
    common = 0
    for mine, theirs in zip(window.wire, previous.wire, strict=False):
        if mine != theirs:
            break
        common += 1
    miss = common < len(previous.wire)
    return miss, system + sum(costs[:common]), total


def core_by_message(dialect: Dialect, wire: list[Any]) -> list[list[Message]]:
    """The core messages read from each message of a window, by the window's own indices."""
    core: list[list[Message]] = [[] for _ in wire]
    for index, message in enumerate(dialect.read(wire)):
        core[source_of(message, index)].append(message)
    return core


@dataclass
class Audit:
    """One run of the audit: files, configurations, budget fraction, tokenizer, planner."""

    configs: Mapping[str, Any]
    fraction: float
    tokenizer: str
    count: TokenCounter
    planner: Planner = plan_in_process
    progress: Callable[[int, int], None] | None = None
    files: list[dict[str, Any]] = field(default_factory=list)
    figures: dict[str, ConfigFigures] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, config in self.configs.items():
            peer = config.get("peer") if isinstance(config, dict) else None
            fit = peer is None and fit_strategy(config) is not None
            recall = peer is None and isinstance(config, dict) and config.get("recall") is not None
            self.figures[name] = ConfigFigures(name, peer, fit, recall)

    def run(self, paths: Sequence[Path], errors: Callable[[str], None]) -> None:
        read: list[AuditFile] = []
        for path in paths:
            try:
                file = read_file(path)
            except AuditError as error:
                errors(f"{path}: {error}")
                self.files.append({"file": str(path), "error": str(error)})
                continue
            read.append(file)
        total = sum(len(file.steps) for file in read) * len(self.configs)
        done = 0
        for file in read:
            budget = budget_of(file, self.fraction, self.count)
            entry: dict[str, Any] = {
                "file": file.name,
                "format": file.dialect.name,
                "steps": len(file.steps),
                "budget": budget,
            }
            if not file.steps:
                entry["note"] = "no steps"
            entry["floor_steps"] = self.floor_steps(file, budget)
            self.files.append(entry)
            for name, config in self.configs.items():
                self.replay(file, budget, self.figures[name], config)
                done += len(file.steps)
                if self.progress is not None:
                    self.progress(done, total)

    def replay(self, file: AuditFile, budget: int, figures: ConfigFigures, config: Any) -> None:
        previous: Window | None = None
        records: list[Any] = []
        summaries: list[dict[str, Any]] = []
        summarizing = isinstance(config, dict) and config.get("summarize") is not None
        for k, step in enumerate(file.steps, start=1):
            prefix = file.prefix(step)
            action = ev.action_identifiers(file.turn_at(step))
            sources = ev.evidence_sources(action, prefix, file.system_text)
            found = list(sources)
            try:
                window, planned = self.window(
                    file, step, prefix, budget, config, k, records, summaries
                )
            except PeerSkipped as error:
                figures.skipped.append({"file": file.name, "reason": str(error)})
                return
            asked = planned.summary_request if summarizing else None
            summary = SummaryFigures()
            if asked is not None:
                summary = self.summary_request(file, step, asked, previous, figures)
                text = scripted_summary(file.dialect, asked["request"])
                if text.strip():
                    # The sessions' default: the same step planned again at once with the new
                    # entry, under the same iteration and records; only its answer is kept.
                    summaries = kept_entries(summaries, asked, text)
                    first_ms = planned.plan_ms
                    window, planned = self.window(
                        file, step, prefix, budget, config, k, records, summaries
                    )
                    planned = replace(planned, plan_ms=first_ms + planned.plan_ms)
            shown = [m for core in window.core for m in core]
            kept = ev.kept(found, ev.shown_texts(shown, window.system))
            recallable = (
                len(ev.recallable(sources, kept, ev.shown_call_ids(shown)))
                if figures.recall
                else None
            )
            miss, cost = billed(window, previous, self.count)
            invalid = self.violations(file, step, window, figures) or summary.invalid
            tokens = tokens_of(shown, window.system, self.count)
            total = tokens + reserve_of(config, budget)
            floor = None
            if figures.fit and total > budget:
                floor_body = self.body(file, step, budget, floor_config(config), k, records)
                if summaries:
                    floor_body["summaries"] = summaries
                floor = self.window_total(file, floor_body, reserve_of(config, budget))
            figures.series.append(
                StepFigures(
                    file=file.name,
                    step=step,
                    index=k,
                    tokens=tokens,
                    evidence=len(found),
                    kept=len(kept),
                    engaged=planned.engaged,
                    cache_miss=miss,
                    billed=cost,
                    invalid=invalid,
                    plan_ms=planned.plan_ms,
                    total=total,
                    budget=budget,
                    floor=floor,
                    summary_tokens=summary.tokens,
                    summary_cached=summary.cached,
                    summary_billed=summary.billed,
                    summary_request=asked is not None,
                    recallable=recallable,
                )
            )
            if planned.record is not None:
                records = [*records, planned.record][-PRIOR_RECORDS:]
            previous = window

    def summary_request(
        self,
        file: AuditFile,
        step: int,
        asked: dict[str, Any],
        previous: Window | None,
        figures: ConfigFigures,
    ) -> SummaryFigures:
        """A summary request judged as a model request: its tokens, the part a prompt cache
        serves (its prefix shared with the window sent before it), what it is billed, and
        whether its provider would refuse it."""
        wire = request_messages(file.dialect, asked["request"])
        sent = Window(
            wire,
            core_by_message(file.dialect, wire),
            request_system(file.dialect, asked["request"]),
        )
        _, cached, total = shared_prefix(sent, previous, self.count)
        found = window_violations(file.dialect.name, file.callers[:step], wire)
        for problem in found[:3]:
            figures.violations.append(f"{file.name} step {step}: summary request: {problem}")
        return SummaryFigures(total, cached, CACHED_SHARE * cached + (total - cached), bool(found))

    def window(
        self,
        file: AuditFile,
        step: int,
        prefix: list[Message],
        budget: int,
        config: Any,
        k: int,
        records: list[Any],
        summaries: list[dict[str, Any]] | None = None,
    ) -> tuple[Window, Planned]:
        if isinstance(config, dict) and "peer" in config:
            return self.peer_window(file, prefix, budget, config["peer"])
        body = self.body(file, step, budget, config, k, records)
        if summaries:
            body["summaries"] = summaries
        planned = self.planner(body)
        window = Window(
            planned.window, core_by_message(file.dialect, planned.window), file.system_text
        )
        return window, planned

    def body(
        self, file: AuditFile, step: int, budget: int, config: Any, k: int, records: list[Any]
    ) -> dict[str, Any]:
        """The plan request a service configuration sends at step `step` (the `k`-th)."""
        body = dict(substitute(config, budget))
        body.setdefault("tokenizer", self.tokenizer)
        body.update(
            format=file.dialect.name,
            messages=file.callers[:step],
            iteration=k,
            prior_records=records,
        )
        if file.system is not None:
            body["system"] = file.system
        return body

    def window_total(self, file: AuditFile, body: dict[str, Any], reserve: int) -> int:
        """The total of the window `body` is planned to, as tokens sent counts it, plus
        `reserve`."""
        wire = self.planner(body).window
        shown = [m for core in core_by_message(file.dialect, wire) for m in core]
        return tokens_of(shown, file.system_text, self.count) + reserve

    def floor_steps(self, file: AuditFile, budget: int) -> list[int]:
        """The steps whose floor, by the default `fit` request, is over the budget. The floor
        request is sent with no records: a held cut never holds at a limit of one token, and a
        stand-down only lets pins go that the floor lets go anyway."""
        floor = floor_config(DEFAULT_CONFIGS[FLOOR_OF])
        return [
            step
            for k, step in enumerate(file.steps, start=1)
            if self.window_total(file, self.body(file, step, budget, floor, k, []), 0) > budget
        ]

    def peer_window(
        self, file: AuditFile, prefix: list[Message], budget: int, peer: str
    ) -> tuple[Window, Planned]:
        started = time.perf_counter()
        form: OpenAIForm = openai_form(prefix, file.system_text, self.count)
        kept = PEER_FUNCTIONS[peer](form, budget)
        elapsed = (time.perf_counter() - started) * 1000
        # The system prompt travels as the form's first message; the window carries it apart,
        # as a top-level one, so that it is counted once and compared on its own for the cache.
        has_system = bool(kept) and form.core[kept[0]] is None
        rest = kept[1:] if has_system else kept
        core = [[message] for i in rest if (message := form.core[i]) is not None]
        window = Window(
            [form.wire[i] for i in rest], core, file.system_text if has_system else None
        )
        engaged = len(kept) < len(form.wire)
        return window, Planned(window.wire, engaged, None, elapsed)

    def violations(
        self, file: AuditFile, step: int, window: Window, figures: ConfigFigures
    ) -> bool:
        if figures.peer is not None:
            sent: list[Any] = openai_form(file.prefix(step), None, self.count).wire
            found = window_violations("openai", sent, window.wire)
        else:
            found = window_violations(file.dialect.name, file.callers[:step], window.wire)
        for problem in found[:3]:
            figures.violations.append(f"{file.name} step {step}: {problem}")
        return bool(found)

    def summary(self) -> dict[str, Any]:
        configurations = {}
        for name, figures in self.figures.items():
            summary = figures.summary()
            if figures.skipped:
                summary["skipped"] = figures.skipped
            configurations[name] = summary
        return {
            "budget_fraction": self.fraction,
            "tokenizer": self.tokenizer,
            "files": self.files,
            "configurations": configurations,
        }

    def series(self) -> Iterator[tuple[str, list[StepFigures]]]:
        for name, figures in self.figures.items():
            yield name, figures.series
