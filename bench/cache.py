"""`python -m bench.cache`: what each strategy costs a provider's prompt cache over one agent run.

A simulated agent works one task for `--requests` requests (default 400). Before each model call
it plans its transcript with the strategy under test, sends the planned window (the model is not
called: its reply is drawn from a fixed seed), then appends the model's turn (one to three
parallel tool calls and their results, 20 characters to 20 KB each, as `bench.generate` draws
them, or now and then a plain reply). Two agents are run for every strategy:
- `window`: it appends the turn to the window it sent, which is its history from then on;
- `full-history`: it keeps its whole history (as the clients' framework hooks do) and plans all of
  it on every request, so the service sees the history grow by one turn per request.
Both count their iterations and send back the last two records they received (`prior_records`).
Every strategy and agent sees the same turns in the same order.

Per strategy, over the run:
- `misses`: requests whose window does not begin with the whole previous window. A provider
  caches the prefix it last read, so only those requests pay full price for what they re-send;
- `sent`: tokens sent in all (`stats.tokens_after`, counted with `estimate`);
- `billed`: tokens a provider would bill if cached reads cost a tenth: the tokens of the longest
  common prefix of this window and the previous one at 10 %, the rest in full;
- `cuts`, `largest`: requests that removed something, and the largest window sent;
- `held`: under `fit`, requests whose cut was the previous one, held (`budget.held`).

The `fit` + summaries row plays the clients' sessions with the audit's scripted summarizer
(`app.audit.summarizer`; docs/rules.md#summaries): a summary request is answered at once, the
entry kept (the newest 16) and the same transcript planned again once, so the window sent holds the
summary. A summary request is a model request too, so it is counted in `sent` and `billed`, billed
against the window sent before it (the tokens of its longest common prefix with that window at a
tenth, the rest in full); its **cache-served share** is that prefix's part of its tokens, reported
per request (median, minimum) and weighted by tokens, with where each request parts from the
window before it, since that is what a provider's cache cannot serve.

The strategies are given comparable budgets: a model limit of `--limit` tokens (default 24,000)
for `fit` (default target, and target = limit; and default target with `clear`'s defaults, which
sends old results the model has read as placeholders before it removes anything), the
token-budget threshold at the same limit (its `measured` is the previous window's count, as the
provider would report it), and a sliding window whose turn count keeps the window near the same
size on this run's average turn. The full-history agent's `fit` + `clear` figures are also given
over `fit` alone's.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.audit.summarizer import kept_entries, scripted_summary
from app.core.tokens import estimate_tokens, message_tokens
from app.formats import dialect_of, read_messages
from app.service.plan import plan_request
from bench.generate import calling_turn, text_of

SYSTEM = "You operate the lab through tools. Answer briefly; call a tool when you need data."
TASK = "Audit every rack in the lab and report which ones run hotter than their rating."
MAX_MESSAGES = 10**9


def model_turns(seed: int, ids: bool = False) -> Iterator[list[dict[str, Any]]]:
    """The model's turns, in order: a batch of calls with their results, or a plain reply; with
    `ids`, each result's text opens with its call's id."""
    rng = random.Random(seed)
    call_number = 0
    while True:
        if rng.random() < 0.08:
            yield [{"role": "assistant", "content": text_of(rng, rng.randint(30, 600))}]
            continue
        turn, call_number = calling_turn(rng, call_number)
        if ids:
            turn = [with_id(message) for message in turn]
        yield turn


def with_id(message: dict[str, Any]) -> dict[str, Any]:
    # The generated results are plain lowercase words, with no identifier for the scripted
    # summarizer to keep: a summary of them would be empty, and a session keeps no empty summary.
    if message.get("role") != "tool":
        return message
    return {**message, "content": f"{message['tool_call_id']}: {message['content']}"}


@dataclass
class Tally:
    name: str
    agent: str
    requests: int = 0
    misses: int = 0
    sent: int = 0
    billed: float = 0.0
    cuts: int = 0
    held: int = 0
    clear_held: int = 0
    largest: int = 0
    summaries: list[dict[str, Any]] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        shares = sorted(request["share"] for request in self.summaries)
        tokens = sum(request["tokens"] for request in self.summaries)
        summary = {
            "summary_requests": len(self.summaries),
            "summary_tokens": tokens,
            "summary_cached_share": None
            if not tokens
            else sum(request["cached"] for request in self.summaries) / tokens,
            "summary_share_median": statistics.median(shares) if shares else None,
            "summary_share_min": shares[0] if shares else None,
        }
        return {
            "strategy": self.name,
            "agent": self.agent,
            "requests": self.requests,
            "misses": self.misses,
            "tokens_sent": self.sent,
            "tokens_billed": round(self.billed),
            "cuts": self.cuts,
            "held": self.held,
            "clear_held": self.clear_held,
            "largest_window": self.largest,
            **(summary if self.summaries else {}),
        }


def window_tokens(window: list[Any]) -> list[int]:
    """Each sent message's tokens, as the plan counts them (native messages are one core
    message each)."""
    return [message_tokens(message, estimate_tokens) for message in read_messages(window, "native")]


def common_prefix(previous: list[Any], window: list[Any]) -> int:
    length = 0
    for old, new in zip(previous, window, strict=False):
        if old != new:
            break
        length += 1
    return length


AGENTS = ("window", "full-history")


def run(
    name: str,
    strategy: dict[str, Any],
    requests: int,
    seed: int,
    agent: str = "window",
    options: dict[str, Any] | None = None,
    ids: bool = False,
) -> Tally:
    """One agent run under `strategy` (its `measured` filled in by the run for token-budget) and
    the request's other `options` (`clear`, `summarize`); `agent` is one of `AGENTS`; with `ids`,
    each result opens with its call's id (`model_turns`)."""
    tally = Tally(name, agent)
    history: list[Any] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": TASK},
    ]
    turns = model_turns(seed, ids)
    records: list[Any] = []
    previous: list[Any] = []
    previous_tokens: list[int] = []
    summaries: list[dict[str, Any]] = []
    for iteration in range(1, requests + 1):
        body: dict[str, Any] = {
            "messages": history,
            "format": "native",
            "strategy": dict(strategy),
            "tokenizer": "estimate",
            "request_text": TASK,
            "iteration": iteration,
            "prior_records": records[-2:],
            "include_turns": False,
            **(options or {}),
        }
        if summaries:
            body["summaries"] = summaries
        if strategy["kind"] == "token-budget":
            measured = sum(previous_tokens) or None
            body["strategy"]["measured"] = (
                None if measured is None else {"input_tokens": measured, "output_tokens": 50}
            )
        answer = orjson.loads(orjson.dumps(plan_request(body, MAX_MESSAGES).content))
        asked = answer.get("summary_request")
        if asked is not None:
            asked_tokens = window_tokens(asked["request"]["messages"])
            shared = common_prefix(previous, asked["request"]["messages"])
            cached = sum(asked_tokens[:shared])
            tally.summaries.append(
                summary_figures(iteration, asked, asked_tokens, cached, shared, previous)
            )
            tally.sent += sum(asked_tokens)
            tally.billed += 0.1 * cached + (sum(asked_tokens) - cached)
            text = scripted_summary(NATIVE, asked["request"])
            if text.strip():
                # The sessions' default: the same transcript at once with the new entry; only
                # the second answer (and its record) is kept.
                summaries = kept_entries(summaries, asked, text)
                body["summaries"] = summaries
                answer = orjson.loads(orjson.dumps(plan_request(body, MAX_MESSAGES).content))
        if answer["record"] is not None:
            records.append(answer["record"])
        window = answer["window"]
        tokens = window_tokens(window)
        assert sum(tokens) == answer["stats"]["tokens_after"]
        shared = common_prefix(previous, window)
        cached = sum(tokens[:shared])
        tally.requests += 1
        tally.misses += int(shared < len(previous))
        tally.sent += sum(tokens)
        tally.billed += 0.1 * cached + (sum(tokens) - cached)
        tally.cuts += int(answer["stats"]["removed_message_count"] > 0)
        tally.held += int(bool(answer.get("budget", {}).get("held")))
        tally.clear_held += int(bool(answer.get("budget", {}).get("clear_held")))
        tally.largest = max(tally.largest, sum(tokens))
        previous, previous_tokens = window, tokens
        history = [*(history if agent == "full-history" else window), *next(turns)]
    return tally


NATIVE = dialect_of("native")
SUMMARY_OPENING = "[compacted history"
NOTICE_OPENING = "[dropped history"


def summary_figures(
    iteration: int,
    asked: dict[str, Any],
    tokens: list[int],
    cached: int,
    shared: int,
    previous: list[Any],
) -> dict[str, Any]:
    """One summary request: its tokens, the part the cache serves, and where it parts from the
    window sent before it (`parts_at`: the message index; `there`: what that window held there,
    `summary` with the tail of a summary that covered part of its span, a `notice`, or a
    `message`; None when the window is a prefix of the request)."""
    there = None
    if shared < len(previous):
        text = previous[shared].get("content")
        text = text if isinstance(text, str) else ""
        if text.startswith(SUMMARY_OPENING):
            there = "summary, partial" if "removed without a summary" in text else "summary"
        elif text.startswith(NOTICE_OPENING):
            there = "notice"
        else:
            there = "message"
    return {
        "iteration": iteration,
        "from": asked["from"],
        "through": asked["through"],
        "tokens": sum(tokens),
        "cached": cached,
        "share": cached / max(1, sum(tokens)),
        "parts_at": None if there is None else shared,
        "there": there,
    }


def average_turn_tokens(seed: int, count: int = 400) -> float:
    turns = model_turns(seed)
    sizes = []
    for _ in range(count):
        turn = next(turns)
        sizes.append(sum(window_tokens(turn)))
    return sum(sizes) / len(sizes)


def fit_to_sliding(rows: list[dict[str, Any]], report: dict[str, Any], keep: int) -> float:
    """The full-history agent's misses under `fit` (default target) over the sliding window's:
    the median over the seeds when several were run, else this run's."""
    ratios = report.get("full_history_ratios")
    if ratios:
        middle = median([ratio["ratio"] for ratio in ratios])
        print(f"full-history: fit misses / sliding-window misses, median over seeds: {middle:.3f}")
        return float(middle)
    misses = {row["strategy"]: row["misses"] for row in rows if row["agent"] == "full-history"}
    ratio = misses[FIT_DEFAULT] / max(1, misses[sliding_name(keep)])
    print(f"full-history: fit misses / sliding-window misses: {ratio:.3f}")
    return ratio


def miss_ratios(
    strategies: dict[str, dict[str, Any]], args: argparse.Namespace, keep: int
) -> list[dict[str, Any]]:
    """The full-history agent's figures at each seed: misses under `fit` (default target) and the
    sliding window, and `fit` + `clear`'s misses, tokens sent and tokens billed over `fit`'s."""
    ratios = []
    for seed in range(args.seed, args.seed + args.seeds):
        fit = run(FIT_DEFAULT, strategies[FIT_DEFAULT], args.requests, seed, "full-history")
        name = sliding_name(keep)
        sliding = run(name, strategies[name], args.requests, seed, "full-history")
        clear_run = (FIT_CLEAR, strategies[FIT_CLEAR], args.requests, seed, "full-history")
        cleared = run(*clear_run, OPTIONS[FIT_CLEAR])
        ratio = fit.misses / max(1, sliding.misses)
        clear = {
            "misses": cleared.misses / max(1, fit.misses),
            "tokens_sent": cleared.sent / max(1, fit.sent),
            "tokens_billed": cleared.billed / max(1.0, fit.billed),
        }
        print(
            f"seed {seed}: fit {fit.misses} misses, sliding-window {sliding.misses}; fit + clear "
            f"{cleared.misses} misses ({clear['misses']:.3f}×), sent {cleared.sent:,} "
            f"({clear['tokens_sent']:.3f}×), billed {round(cleared.billed):,} "
            f"({clear['tokens_billed']:.3f}×), clear held {cleared.clear_held}",
            flush=True,
        )
        ratios.append(
            {
                "seed": seed,
                "fit": fit.misses,
                "sliding_window": sliding.misses,
                "ratio": ratio,
                "fit_sent": fit.sent,
                "fit_billed": round(fit.billed),
                "clear_misses": cleared.misses,
                "clear_sent": cleared.sent,
                "clear_billed": round(cleared.billed),
                "clear_held": cleared.clear_held,
                "clear_to_fit": clear,
            }
        )
    return ratios


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


FIT_DEFAULT = "fit (target default, 0.8 × limit)"
FIT_CLEAR = "fit (target default) + clear {}"
FIT_IDS = "fit (target default), ids"
FIT_SUMMARIES = "fit (target default) + summaries, ids"
# Request options beside the strategy, by row.
OPTIONS: dict[str, dict[str, Any]] = {FIT_CLEAR: {"clear": {}}, FIT_SUMMARIES: {"summarize": {}}}
# The rows whose results open with their call's id: the summaries row, and `fit` on the same turns.
WITH_IDS = (FIT_IDS, FIT_SUMMARIES)


# The targets for fit + clear over fit alone, full history (docs/rules.md#holding-the-boundary).
CLEAR_TARGETS = {"misses": 1.5, "tokens_sent": 1.0, "tokens_billed": 1.0}


def clear_to_fit(rows: list[dict[str, Any]], report: dict[str, Any]) -> dict[str, float]:
    """The full-history agent's misses, tokens sent and tokens billed under `fit` + `clear`, each
    over `fit` alone's (both at the default target), with whether each target is met: misses at
    most 1.5 times, tokens sent and billed below. With several seeds, the median of each ratio
    over them is printed too."""
    by_name = {row["strategy"]: row for row in rows if row["agent"] == "full-history"}
    cleared, fit = by_name[FIT_CLEAR], by_name[FIT_DEFAULT]
    ratios = {key: cleared[key] / max(1, fit[key]) for key in CLEAR_TARGETS}
    print("full-history: fit + clear over fit alone: " + verdicts(ratios))
    seeds = report.get("full_history_ratios")
    if seeds:
        medians = {
            key: median([seed["clear_to_fit"][key] for seed in seeds]) for key in CLEAR_TARGETS
        }
        print("full-history: fit + clear over fit alone, median over seeds: " + verdicts(medians))
    return ratios


def verdicts(ratios: dict[str, float]) -> str:
    def met(key: str, value: float) -> bool:
        # misses: at most the target; tokens: strictly below it.
        return value <= CLEAR_TARGETS[key] if key == "misses" else value < CLEAR_TARGETS[key]

    return ", ".join(
        f"{key} {value:.3f} ({'met' if met(key, value) else 'NOT met'})"
        for key, value in ratios.items()
    )


def print_summary_requests(agent: str, requests: list[dict[str, Any]]) -> None:
    """The summary requests of one agent's `fit` + summaries run: the cache-served share of their
    tokens (median, minimum, weighted by tokens), and each request under 0.9 with where it parts
    from the window sent before it."""
    shares = sorted(request["share"] for request in requests)
    tokens = sum(request["tokens"] for request in requests)
    weighted = sum(request["cached"] for request in requests) / max(1, tokens)
    print(
        f"{agent}: {len(requests)} summary requests, {tokens:,} tokens; cache-served share "
        f"median {statistics.median(shares):.3f}, min {shares[0]:.3f}, "
        f"token-weighted {weighted:.3f}"
    )
    for request in requests:
        if request["share"] < 0.9:
            print(
                f"  request {request['iteration']} ({request['from']}–{request['through']}): "
                f"{request['cached']:,}/{request['tokens']:,} tokens cached, parts at message "
                f"{request['parts_at']} ({request['there']})"
            )


def sliding_name(keep: int) -> str:
    return f"sliding-window (keep {keep} turns)"


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.cache", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--limit", type=int, default=24_000, help="the model's budget, in tokens")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--seeds",
        type=int,
        default=1,
        help="runs of the full-history agent at seeds seed … seed+N−1, for the median ratios of "
        "fit's misses to the sliding window's and of fit + clear's figures to fit's",
    )
    parser.add_argument("--output", type=str, default="bench/results/cache.json")
    args = parser.parse_args()
    if args.requests < 300:
        parser.error("--requests must be at least 300: a run must see several cuts")
    limit = args.limit
    keep = max(2, round(0.9 * limit / average_turn_tokens(args.seed)))
    strategies = {
        FIT_DEFAULT: {"kind": "fit", "max_tokens": limit},
        FIT_CLEAR: {"kind": "fit", "max_tokens": limit},
        FIT_IDS: {"kind": "fit", "max_tokens": limit},
        FIT_SUMMARIES: {"kind": "fit", "max_tokens": limit},
        "fit (target = limit)": {"kind": "fit", "max_tokens": limit, "target_tokens": limit},
        sliding_name(keep): {
            "kind": "sliding-window",
            "keep_recent_turns": keep,
        },
        "token-budget (threshold = limit)": {"kind": "token-budget", "threshold_tokens": limit},
    }
    rows = []
    print(
        f"{'strategy':<38}{'agent':>14}{'requests':>9}{'misses':>8}{'cuts':>6}{'held':>6}"
        f"{'clear held':>11}{'sent':>12}{'billed':>12}{'largest':>9}",
        flush=True,
    )
    summary_requests: dict[str, list[dict[str, Any]]] = {}
    for agent in AGENTS:
        for name, strategy in strategies.items():
            tally = run(
                name, strategy, args.requests, args.seed, agent, OPTIONS.get(name), name in WITH_IDS
            )
            row = tally.row()
            rows.append(row)
            print(
                f"{name:<38}{agent:>14}{row['requests']:>9}{row['misses']:>8}{row['cuts']:>6}"
                f"{row['held']:>6}{row['clear_held']:>11}{row['tokens_sent']:>12,}{row['tokens_billed']:>12,}"
                f"{row['largest_window']:>9,}",
                flush=True,
            )
            if tally.summaries:
                summary_requests[agent] = tally.summaries
    for agent, requests in summary_requests.items():
        print_summary_requests(agent, requests)
    report: dict[str, Any] = {
        "limit_tokens": limit,
        "requests": args.requests,
        "seed": args.seed,
        "rows": rows,
        "summary_requests": summary_requests,
    }
    if args.seeds > 1:
        report["full_history_ratios"] = miss_ratios(strategies, args, keep)
    report["full_history_fit_to_sliding"] = fit_to_sliding(rows, report, keep)
    report["full_history_clear_to_fit"] = clear_to_fit(rows, report)
    with open(args.output, "wb") as out:
        out.write(orjson.dumps(report, option=orjson.OPT_INDENT_2))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
