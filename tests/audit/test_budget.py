"""The audit's budget figures (docs/quality.md#over-budget-and-floor-steps): the steps whose window
total is over the file's budget `B`, the largest total over `B`, the floor steps of each file, and
the over-budget steps of a service `fit` configuration that are not floor steps (exit status 1).

The floor is what `fit` reaches with `max_tokens` and `target_tokens` 1, so it is exactly what can
never leave only as far as `fit` runs its stages (docs/rules.md#the-fit-strategy); where it stops
earlier, the floor measured is higher. The assertions here hold either way: a step is asserted to
be a floor step only when what can never leave (a system message, here) is over `B` alone, and
a step is asserted not to be one only when the plan already brings its floor under `B` (further
stages only remove or shape more).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.audit import cli
from app.audit.replay import DEFAULT_CONFIGS, Audit, Planned, plan_in_process, tokens_of
from app.formats import dialect_of
from app.tokenizers import counter

COUNT = counter("estimate")


def call(number: int, path: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": f"c{number}", "name": "look", "arguments": {"path": path}}],
    }


def result(number: int, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"c{number}", "tool_name": "look", "content": text}


# Steps 3, 5, 7 and 9; two large results early, two small ones late.
MESSAGES = [
    {"role": "user", "content": "Look at the files."},
    call(1, "a"),
    result(1, "a" * 2000),
    call(2, "b"),
    result(2, "b" * 2000),
    call(3, "c"),
    result(3, "c" * 100),
    call(4, "d"),
    result(4, "d" * 100),
    {"role": "assistant", "content": "done"},
]
# Never removes anything: every window is the whole prefix.
WHOLE = {"strategy": {"kind": "sliding-window", "keep_recent_turns": 50}}
# A `fit` whose limit is far over the file's budget: it never engages, so it keeps the whole
# prefix too, and its reserve is added to each total.
LOOSE_FIT = {"strategy": {"kind": "fit", "max_tokens": 100_000, "reserve_tokens": 50}}


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def audit_of(paths: list[Path], configs: dict[str, Any]) -> Audit:
    audit = Audit(configs, 0.35, "estimate", COUNT)
    audit.run(paths, pytest.fail)
    return audit


def prefix_tokens(step: int, system: str | None = None) -> int:
    """The tokens of messages 0 … step−1 as the audit counts a window."""
    return tokens_of(dialect_of("native").read(MESSAGES[:step]), system, COUNT)


def test_over_budget_steps_count_the_window_and_the_reserve(tmp_path: Path) -> None:
    """B = max(200, ceil(0.35 × tokens(P))), P the prefix of step 9: 1,119 tokens, so B = 392.
    Both configurations keep the whole prefix at every step (524, 1,039, 1,079 and 1,119 tokens),
    all four over B; the loose `fit` adds its reserve of 50 to each total."""
    path = write(tmp_path / "run.json", {"format": "native", "messages": MESSAGES})
    audit = audit_of([path], {"whole": WHOLE, "loose fit": LOOSE_FIT})
    (entry,) = audit.files
    totals = [prefix_tokens(step) for step in (3, 5, 7, 9)]
    assert totals == [524, 1039, 1079, 1119]
    assert entry["budget"] == 392
    whole, loose = audit.figures["whole"], audit.figures["loose fit"]
    assert [(s.total, s.budget) for s in whole.series] == [(t, 392) for t in totals]
    assert [s.total for s in loose.series] == [t + 50 for t in totals]
    assert [s.tokens for s in loose.series] == totals  # tokens sent stay the window's own
    figures = audit.summary()["configurations"]
    assert figures["whole"]["over_budget_steps"] == 4
    assert figures["whole"]["over_budget_max_ratio"] == pytest.approx(1119 / 392)
    assert figures["loose fit"]["over_budget_max_ratio"] == pytest.approx(1169 / 392)
    # Only a service `fit` configuration is judged against the floor.
    assert figures["whole"]["over_budget_not_floor"] is None
    assert figures["loose fit"]["over_budget_not_floor"] >= 1


def test_a_configuration_within_its_budget_has_no_over_budget_step(tmp_path: Path) -> None:
    short = write(tmp_path / "short.json", {"format": "native", "messages": MESSAGES[:4]})
    audit = audit_of([short], {"whole": WHOLE})
    figures = audit.summary()["configurations"]["whole"]
    # Step 3's prefix (524 tokens) is the last: B = max(200, ceil(0.35 × 524)) = 184 → 200.
    assert audit.files[0]["budget"] == 200
    assert (figures["over_budget_steps"], figures["over_budget_max_ratio"]) == (1, 524 / 200)
    # At F = 1, B is the last prefix's own tokens: no window is over it.
    audit = Audit({"roomy": DEFAULT_CONFIGS["fit"]}, 1.0, "estimate", COUNT)
    audit.run([short], pytest.fail)
    figures = audit.summary()["configurations"]["roomy"]
    assert (figures["over_budget_steps"], figures["over_budget_max_ratio"]) == (0, None)
    assert figures["over_budget_not_floor"] == 0


def test_a_step_whose_system_prompt_alone_is_over_budget_is_a_floor_step(tmp_path: Path) -> None:
    """A 1,000-character system message (254 tokens) never leaves; with the small messages after
    it P is 279 tokens at step 4, so B = max(200, ceil(0.35 × 279)) = 200 and the floor is over B
    under any stage at both steps (2, right after the person's message, and 4): both are floor
    steps, and a loose `fit` over budget there is over budget on floor steps only."""
    system = {"role": "system", "content": "s" * 1000}
    messages = [system, MESSAGES[0], call(1, "a"), result(1, "ok"), MESSAGES[-1]]
    path = write(tmp_path / "run.json", {"format": "native", "messages": messages})
    audit = audit_of([path], {"loose fit": LOOSE_FIT})
    (entry,) = audit.files
    assert tokens_of(dialect_of("native").read(messages[:4]), None, COUNT) == 279
    assert entry["budget"] == 200
    assert entry["floor_steps"] == [2, 4]
    figures = audit.summary()["configurations"]["loose fit"]
    assert figures["over_budget_steps"] == 2
    assert figures["over_budget_not_floor"] == 0
    assert all(s.floor is not None and s.floor > 200 for s in audit.figures["loose fit"].series)


def test_the_floor_is_the_same_request_at_a_limit_of_one_token(tmp_path: Path) -> None:
    """The floor requests, seen by a planner that passes each body on: the file's floor is the
    default `fit` configuration's request with `max_tokens` and `target_tokens` 1, at every step;
    a configuration's own floor is its own request (its other options and reserve kept) at 1,
    asked only at the steps where it is over budget."""
    path = write(tmp_path / "run.json", {"format": "native", "messages": MESSAGES})
    bodies: list[dict[str, Any]] = []

    def planner(body: dict[str, Any]) -> Planned:
        bodies.append(body)
        return plan_in_process(body)

    audit = Audit({"loose fit": LOOSE_FIT}, 0.35, "estimate", COUNT, planner=planner)
    audit.run([path], pytest.fail)
    floors = [b for b in bodies if b["strategy"]["max_tokens"] == 1]
    default = [b for b in floors if "reserve_tokens" not in b["strategy"]]
    own = [b for b in floors if "reserve_tokens" in b["strategy"]]
    assert [len(b["messages"]) for b in default] == [3, 5, 7, 9]
    assert all(
        b["strategy"] == {"kind": "fit", "max_tokens": 1, "target_tokens": 1} for b in default
    )
    assert [len(b["messages"]) for b in own] == [3, 5, 7, 9]  # over budget at every step
    assert all(
        b["strategy"] == {"kind": "fit", "max_tokens": 1, "target_tokens": 1, "reserve_tokens": 50}
        for b in own
    )
    # Step 9 today: the first two turns leave, and the floor (190 + 50) is under B = 392.
    series = audit.figures["loose fit"].series
    assert series[-1].floor is not None and series[-1].floor <= 392
    assert 9 not in audit.files[0]["floor_steps"]


def test_an_over_budget_step_that_is_not_a_floor_step_fails_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "run.json", {"format": "native", "messages": MESSAGES})
    config = write(tmp_path / "c.json", {"loose fit": LOOSE_FIT, "whole": WHOLE})
    out = tmp_path / "a.json"
    assert cli.main([str(path), "--config", str(config), "--json", str(out)]) == 1
    captured = capsys.readouterr()
    assert "loose fit: " in captured.err and "not floor steps" in captured.err
    assert "whole:" not in captured.err  # not a `fit` configuration: reported, not judged
    report = json.loads(out.read_text(encoding="utf-8"))
    figures = report["configurations"]["loose fit"]
    assert figures["over_budget_steps"] == 4 and figures["over_budget_not_floor"] >= 1
    assert {"total", "budget", "floor"} <= set(report["series"]["loose fit"][0])
    assert isinstance(report["files"][0]["floor_steps"], list)
    assert "over B" in captured.out and "not floor" in captured.out


def test_the_page_draws_each_budget_and_names_the_files_it_could_not_use(tmp_path: Path) -> None:
    path = write(tmp_path / "run.json", {"format": "native", "messages": MESSAGES})
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    short = write(tmp_path / "short.json", [{"role": "user", "content": "hi"}])
    page = tmp_path / "a.html"
    configs = {"fit": DEFAULT_CONFIGS["fit"], "whole": WHOLE}
    config = write(tmp_path / "c.json", configs)
    cli.main([str(broken), str(short), str(path), "--config", str(config), "--html", str(page)])
    text = page.read_text(encoding="utf-8")
    assert 'class="budget"' in text and "B = 392" in text
    assert "broken.json" in text and "short.json" in text and "no steps" in text
    assert "floor steps" in text
