"""One agent run's plans, with the bookkeeping the service leaves to the caller.

The stand-down (`docs/rules.md#the-stand-down`), `fit`'s held cut and `clear`'s held boundary
(`docs/rules.md#holding-the-boundary`) read the last records the run's plans filed, so a caller must
send them back; `PlannerSession` keeps them (the last two non-null `record`s, oldest first: an
engaged plan's, or under `fit` with `clear` the clear-only record) and sends them as
`prior_records`.

It also numbers the iterations: the plan precedes one model request, so each plan that succeeds
is one iteration of the agent. The first plan is sent with `iteration` 1 (or the number given),
and each successful plan moves the count on by one, whether or not it engaged; a plan that raised
does not, since the model request it was for was not made with it. An `iteration` or
`prior_records` passed to one `plan()` call overrides the session's for that call, and the count
continues from the given iteration. `reset()` starts a new run.

Summaries (`docs/rules.md#summaries`): the service never calls a model, so a summary of the span a
plan removes is written by the agent's own model, and carried by the caller. A session given a
`summarize(request) -> str` runs that protocol: its plans ask for summary requests (the `summarize`
option, with `summary_instructions` and `min_span_tokens` when given), and send the summaries it
holds (`summaries`, the newest 16: the service reads no more). When an answer carries a
`summary_request`, the session hands its ready-to-send model request (`request`, in the plan's own
wire format) to `summarize`, keeps the text it returns with the request's `from`, `through` and
`key`, and, unless `replan=False`, plans the same transcript again at once, so that the window it
returns holds the summary instead of the drop notice. That second plan stands for the same model
request as the first: it is sent with the same `iteration` and `prior_records`, and only its
record is kept. A summary request in its answer waits for the next plan, so one `plan()` makes at
most one summary and two plans. An empty (or blank) text keeps nothing and plans nothing again:
the window keeps its notice. A summarizer that raises fails the `plan()` call, as the model request
it stands for would.

A `summarize` given to one `plan()` call as a callable is that call's summarizer (the framework
hooks pass one that uses the framework's own model); any other `summarize` value there is the
service's option, sent as given. A session without a summarizer sends neither option unless asked,
so its plans are as they were.

Recall (`docs/rules.md#recall`): a plan asked for with the `recall` option (in the session's
defaults or one call's options) names a tool the model can call to get back what the window left
out, and `recall_tool` holds that plan's declaration of it. The session answers such a call with
`recall(ref=..., query=..., page=...)`, through `POST /v1/recall`, over the messages it was last
given to plan (the whole history, never the window) with the same `format` and `system`; the text
the tool returns to the model is `recall_text(answer)`, which names the tool when a page follows.

A session belongs to one run, whose plans come one after another; it is not shared between
concurrent runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cwp_client.recall import DEFAULT_TOOL_NAME, recall_text, tool_name_of

if TYPE_CHECKING:
    from cwp_client.generated.models.recall_response import RecallResponse
    from cwp_client.planner import AsyncPlanner, Plan, Planner

KEPT_RECORDS = 2
# The service refuses more (`summaries` is at most 16 entries); the newest are the ones that can
# still apply, each new summary covering the span of the one before it.
KEPT_SUMMARIES = 16
SUMMARY_FIELDS = ("from", "through", "key")
# The options of a plan that say how its messages read, which a recall over them sends too.
HISTORY_OPTIONS = ("format", "system")

Summarizer = Callable[[dict[str, Any]], str]
AsyncSummarizer = Callable[[dict[str, Any]], Awaitable[str] | str]


class _Bookkeeping:
    def __init__(
        self,
        *,
        iteration: int = 1,
        prior_records: Sequence[Mapping[str, Any]] = (),
        summarize: Callable[[dict[str, Any]], Any] | None = None,
        summary_instructions: str | None = None,
        min_span_tokens: int | None = None,
        summaries: Sequence[Mapping[str, Any]] = (),
        replan: bool = True,
        **defaults: Any,
    ) -> None:
        if iteration < 1:
            raise ValueError("iteration starts at 1")
        if summarize is not None and not callable(summarize):
            raise TypeError(
                "summarize is the function that sends a summary request to the model; "
                "set the service's options with summary_instructions and min_span_tokens"
            )
        self.first_iteration = iteration
        self.iteration = iteration
        self.records: list[dict[str, Any]] = [dict(r) for r in prior_records][-KEPT_RECORDS:]
        self.summarize = summarize
        self.summary_option: dict[str, Any] = {}
        if summary_instructions is not None:
            self.summary_option["instructions"] = summary_instructions
        if min_span_tokens is not None:
            self.summary_option["min_span_tokens"] = min_span_tokens
        self.summaries: list[dict[str, Any]] = [dict(s) for s in summaries][-KEPT_SUMMARIES:]
        self.replan = replan
        self.defaults = defaults
        self._last_plan: Plan | None = None
        self._history: tuple[list[Any], dict[str, Any]] | None = None
        self._tool_name: str | None = None

    def _summarizer(self, options: dict[str, Any]) -> Callable[[dict[str, Any]], Any] | None:
        """This call's summarizer, taken out of `options` when given there as a callable."""
        given = options.get("summarize")
        if callable(given):
            del options["summarize"]
            summarizer: Callable[[dict[str, Any]], Any] = given
            return summarizer
        return self.summarize

    def _options(
        self, options: Mapping[str, Any], summarizer: Callable[..., Any] | None
    ) -> dict[str, Any]:
        sent: dict[str, Any] = {
            **self.defaults,
            "iteration": self.iteration,
            "prior_records": list(self.records),
        }
        if summarizer is not None:
            sent["summarize"] = dict(self.summary_option)
        if self.summaries:
            sent["summaries"] = [dict(s) for s in self.summaries]
        return {**sent, **options}

    def _keep_summary(self, request: Mapping[str, Any], text: Any) -> bool:
        """Keep `text` as the summary `request` asked for; False when there is nothing to keep."""
        if not isinstance(text, str) or not text.strip():
            return False
        entry = {name: request[name] for name in SUMMARY_FIELDS}
        kept = [s for s in self.summaries if {n: s.get(n) for n in SUMMARY_FIELDS} != entry]
        self.summaries = [*kept, {**entry, "summary": text}][-KEPT_SUMMARIES:]
        return True

    def _again(self, sent: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any] | None:
        """The body options of the re-plan, or None when the session leaves it to the next plan
        (also when the caller's own `summaries` for this call would hide the new one)."""
        if not self.replan or "summaries" in options:
            return None
        return {**sent, "summaries": [dict(s) for s in self.summaries]}

    def _file(self, sent: Mapping[str, Any], plan: Plan, messages: Sequence[Any]) -> None:
        if plan.record is not None:
            self.records = [*self.records, plan.record][-KEPT_RECORDS:]
        self.iteration = int(sent["iteration"]) + 1
        self._last_plan = plan
        read_as = {name: sent[name] for name in HISTORY_OPTIONS if sent.get(name) is not None}
        self._history = (list(messages), read_as)
        self._tool_name = tool_name_of(sent.get("recall"))

    @property
    def recall_tool(self) -> dict[str, Any] | None:
        """The last plan's declaration of the recall tool (its `recall_tool`); None before a plan
        or when it was asked for without `recall`."""
        return None if self._last_plan is None else self._last_plan.recall_tool

    def recall_text(self, answer: RecallResponse) -> str:
        """The text the recall tool returns to the model for `answer`: its `text`, then, when a
        page follows, `[page {page} of {pages}: call {T} with page {page + 1} for more]`, `{T}` the
        tool the last plan named (its default name when none did)."""
        return recall_text(answer, self._tool_name or DEFAULT_TOOL_NAME)

    def _recall_body(
        self, ref: str | None, query: str | None, page: int, options: Mapping[str, Any]
    ) -> tuple[list[Any], dict[str, Any]]:
        if self._history is None:
            raise RuntimeError(
                "recall answers from the messages of the session's last plan: none yet"
            )
        messages, read_as = self._history
        return messages, {**read_as, "ref": ref, "query": query, "page": page, **options}

    def reset(self) -> None:
        """Start a new run: iteration back to its first number, no records, no summaries, no
        history to recall from."""
        self.iteration = self.first_iteration
        self.records = []
        self.summaries = []
        self._last_plan = None
        self._history = None
        self._tool_name = None


class PlannerSession(_Bookkeeping):
    """Plans of one run through a `Planner`; `defaults` (e.g. `format`, `strategy`, `system`)
    go with every plan, under the options of the call. `summarize`, `summary_instructions`,
    `min_span_tokens`, `summaries` and `replan` set up summaries (see the module's docstring)."""

    summarize: Summarizer | None

    def __init__(
        self, planner: Planner, *, summarize: Summarizer | None = None, **defaults: Any
    ) -> None:
        super().__init__(summarize=summarize, **defaults)
        self.planner = planner

    def plan(self, messages: Sequence[Any], **options: Any) -> Plan:
        summarizer = self._summarizer(options)
        sent = self._options(options, summarizer)
        plan = self.planner.plan(messages, **sent)
        request = plan.summary_request
        if summarizer is not None and request is not None:
            text = summarizer(request["request"])
            if inspect.isawaitable(text):
                close = getattr(text, "close", None)
                if close is not None:
                    close()
                raise TypeError("a PlannerSession's summarize returns the text, not an awaitable")
            if self._keep_summary(request, text):
                again = self._again(sent, options)
                if again is not None:
                    plan = self.planner.plan(messages, **again).replacing(plan)
        self._file(sent, plan, messages)
        return plan

    def recall(
        self, ref: str | None = None, query: str | None = None, page: int = 1, **options: Any
    ) -> RecallResponse:
        """One page of what `ref` (a result's tool call id) or `query` (words to search for)
        finds in the messages of the last plan, read with its `format` and `system`; `options`
        go with the request (`max_chars`). Raises `RuntimeError` before the first plan."""
        messages, body = self._recall_body(ref, query, page, options)
        return self.planner.recall(messages, **body)


class AsyncPlannerSession(_Bookkeeping):
    """The asynchronous `PlannerSession`; its `summarize` may return the text or an awaitable
    of it."""

    summarize: AsyncSummarizer | None

    def __init__(
        self, planner: AsyncPlanner, *, summarize: AsyncSummarizer | None = None, **defaults: Any
    ) -> None:
        super().__init__(summarize=summarize, **defaults)
        self.planner = planner

    async def plan(self, messages: Sequence[Any], **options: Any) -> Plan:
        summarizer = self._summarizer(options)
        sent = self._options(options, summarizer)
        plan = await self.planner.plan(messages, **sent)
        request = plan.summary_request
        if summarizer is not None and request is not None:
            text = summarizer(request["request"])
            if inspect.isawaitable(text):
                text = await text
            if self._keep_summary(request, text):
                again = self._again(sent, options)
                if again is not None:
                    plan = (await self.planner.plan(messages, **again)).replacing(plan)
        self._file(sent, plan, messages)
        return plan

    async def recall(
        self, ref: str | None = None, query: str | None = None, page: int = 1, **options: Any
    ) -> RecallResponse:
        """See `PlannerSession.recall`."""
        messages, body = self._recall_body(ref, query, page, options)
        return await self.planner.recall(messages, **body)
