"""Prometheus metrics: one registry per app, so tests and replicas never share counters.

Routes are labelled by their path template (`/v1/window/plan`), never the raw path, so a scan of
random URLs cannot grow the number of series: anything unmatched is labelled `unmatched`. Methods
likewise: h11 accepts any token as a method, so only the standard ones (RFC 9110 and `PATCH`) get
a label of their own and every other token is `other`. A body
refused from its declared length, answered before the app routes it, is labelled by the route the
router would have chosen (`app.api.middleware`), like a chunked body refused while it streams in.

The token-count memo (`app.tokenizers.MEMO`) is the process's, not an app's: its hits, misses and
entries are read from it when `/metrics` is scraped, so a count costs no metric update.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from app.tokenizers import MEMO, CountMemo

# Tool names come from callers: only this many distinct names get a series of their own (the rest
# share `other`), so a caller cannot grow the metrics without bound.
MAX_TOOL_LABELS = 200
_SAFE_TOOL_LABEL = re.compile(r"[A-Za-z0-9_.:-]{1,64}")

STANDARD_METHODS = frozenset(
    {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}
)

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


@dataclass(frozen=True)
class Metrics:
    registry: CollectorRegistry
    requests: Counter
    latency: Histogram
    plans: Counter
    removed_messages: Counter
    refusals: Counter
    cap_results: Counter
    cap_truncations: Counter
    collapsed_results: Counter
    cleared_results: Counter
    summaries_applied: Counter
    summary_requests: Counter
    fit_stages: Counter
    cleared_images: Counter
    cleared_thinking: Counter
    closed_connections: Counter
    recalls: Counter
    tool_labels: set[str] = field(default_factory=set)
    children: dict[tuple[int, tuple[str, ...]], Any] = field(default_factory=dict)

    def child(self, metric: Counter | Histogram, *labels: str) -> Any:
        """`metric.labels(*labels)`, looked up once: every request touches several series, and
        the client library's lookup costs more than the increment."""
        key = (id(metric), labels)
        found = self.children.get(key)
        if found is None:
            found = self.children[key] = metric.labels(*labels)
        return found

    def tool_label(self, tool_name: str) -> str:
        """The label a tool's series uses: its name while names are few and plain, else `other`."""
        if tool_name in self.tool_labels:
            return tool_name
        if len(self.tool_labels) < MAX_TOOL_LABELS and _SAFE_TOOL_LABEL.fullmatch(tool_name):
            self.tool_labels.add(tool_name)
            return tool_name
        return "other"


def method_label(method: str) -> str:
    """The `method` label of a request: the method itself when standard, else `other`."""
    return method if method in STANDARD_METHODS else "other"


class MemoCollector(Collector):
    """The token-count memo's figures, read at each scrape."""

    def __init__(self, memo: CountMemo) -> None:
        self.memo = memo

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily(
            "cwp_token_memo_hits",
            "Exact token counts answered from the memo.",
            value=self.memo.hits,
        )
        yield CounterMetricFamily(
            "cwp_token_memo_misses",
            "Exact token counts computed and stored in the memo.",
            value=self.memo.misses,
        )
        yield GaugeMetricFamily(
            "cwp_token_memo_entries",
            "Token counts held in the memo (CWP_TOKEN_MEMO_ENTRIES bounds it).",
            value=len(self.memo),
        )


def create_metrics(memo: CountMemo = MEMO) -> Metrics:
    registry = CollectorRegistry()
    registry.register(MemoCollector(memo))
    return Metrics(
        registry=registry,
        requests=Counter(
            "cwp_http_requests",
            "HTTP requests answered, by route template, method and status.",
            ["route", "method", "status"],
            registry=registry,
        ),
        latency=Histogram(
            "cwp_http_request_duration_seconds",
            "Time to answer an HTTP request, by route template, method and status.",
            ["route", "method", "status"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        ),
        plans=Counter(
            "cwp_plans",
            "Window plans computed, by strategy and whether the strategy engaged.",
            ["strategy", "engaged"],
            registry=registry,
        ),
        removed_messages=Counter(
            "cwp_plan_removed_messages",
            "Messages removed from windows, by strategy.",
            ["strategy"],
            registry=registry,
        ),
        refusals=Counter(
            "cwp_plan_refusals",
            "Refusal rows reported by window plans, by reason.",
            ["reason"],
            registry=registry,
        ),
        cap_results=Counter(
            "cwp_cap_results",
            "Tool results measured by the cap, by tool.",
            ["tool"],
            registry=registry,
        ),
        cap_truncations=Counter(
            "cwp_cap_truncations",
            "Tool results replaced by a marker (by the cap endpoint or a plan's `cap`), by tool.",
            ["tool"],
            registry=registry,
        ),
        collapsed_results=Counter(
            "cwp_plan_collapsed_results",
            "Tool results a plan's `collapse` sent as a ticket, by tool.",
            ["tool"],
            registry=registry,
        ),
        cleared_results=Counter(
            "cwp_plan_cleared_results",
            "Tool results a plan's `clear` sent as a placeholder, by tool.",
            ["tool"],
            registry=registry,
        ),
        summaries_applied=Counter(
            "cwp_plan_summaries_applied",
            "Plans whose window carries a summary the agent sent, in the notice's place.",
            registry=registry,
        ),
        summary_requests=Counter(
            "cwp_plan_summary_requests",
            "Plans whose answer carries a summary request.",
            registry=registry,
        ),
        fit_stages=Counter(
            "cwp_plan_fit_stages",
            "Engaged `fit` plans, by the last stage that removed or shaped something (`span`, "
            "`further-spans`, `pins`, `keep-window`, `caps`), and whether the budget was met.",
            ["stage", "met"],
            registry=registry,
        ),
        cleared_images=Counter(
            "cwp_plan_cleared_images",
            "Images a plan replaced by a text (`fit`'s caps, `clear.images`).",
            registry=registry,
        ),
        cleared_thinking=Counter(
            "cwp_plan_cleared_thinking",
            "Caller messages (Responses reasoning items) whose reasoning a plan's "
            "`clear.thinking` took out.",
            registry=registry,
        ),
        closed_connections=Counter(
            "cwp_http_connections_closed_unheard",
            "Connections closed before their first byte: `silent` at the read deadline, "
            "`evicted` to make room when as many silent ones as CWP_LIMIT_CONCURRENCY were held.",
            ["reason"],
            registry=registry,
        ),
        recalls=Counter(
            "cwp_recalls",
            "Recalls answered, by `kind` (`ref` or `query`) and whether anything was `found`.",
            ["kind", "found"],
            registry=registry,
        ),
    )
