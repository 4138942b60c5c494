"""The audit command: a recorded sample's figures checked by hand, no invalid window of the
service's configurations on any bundled sample, the peers, and the command's files and answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.audit import cli
from app.audit.peers import openai_form, sliding, trim
from app.audit.replay import DEFAULT_CONFIGS, Audit, read_file
from app.audit.summarizer import kept_entries, scripted_summary
from app.core.messages import Message, ToolCall
from app.core.tokens import message_tokens
from app.formats import dialect_of
from app.tokenizers import counter

SAMPLES = cli.sample_paths()
OPENHANDS = next(path for path in SAMPLES if path.name == "openhands-todo-app.json")
SWE_AGENT = next(path for path in SAMPLES if path.name == "swe-agent-pydicom-1458.json")
SERVICE_CONFIGS = {name: c for name, c in DEFAULT_CONFIGS.items() if "peer" not in c}


def audit_of(paths: list[Path], configs: dict[str, Any], fraction: float = 0.35) -> Audit:
    audit = Audit(configs, fraction, "estimate", counter("estimate"))
    audit.run(paths, pytest.fail)
    return audit


def test_the_bundled_samples_are_four_agents_in_four_dialects() -> None:
    formats = {read_file(path).dialect.name for path in SAMPLES}
    assert formats == {"openai", "anthropic", "bedrock", "gemini"}
    assert all(path.stat().st_size < 300_000 for path in SAMPLES)


def test_a_recorded_sample_checked_by_hand() -> None:
    """The OpenHands run, at F = 0.35, under `fit`.

    By hand, from the sample: its ten messages cost, by the `estimate` count (a quarter of the
    UTF-8 bytes rounded up, 4 a message, 3 and the name and arguments a call), 85, 68, 21, 1061,
    1009, 574, 554, 43, 19 and 310 tokens. A step is an assistant message after a user or result
    message at index 2 or later: 3, 5, 7 and 9 (message 1 follows the user at index 0). The last
    step's prefix is messages 0–8, 3,434 tokens, so B = ceil(0.35 × 3,434) = ceil(1,201.9) = 1,202.
    Step 3's prefix (85 + 68 + 21 = 174) is under B: nothing engages, the window is the prefix,
    and, the file's first step, a miss billed in full (174). Step 5's prefix (174 + 1061 + 1009 =
    2,244) is over B, so `fit` engages (docs/rules.md#within-the-limit): turn 0 is the request,
    turns 1–2 the keep window; nothing may leave as a span, so the keep window yields turn 1
    (messages 1–2, 89 tokens), while turn 2 holds the last assistant message and stays. Still over
    the limit, the caps cut its 4,017-character result at 502 (a 447-character marker): turn 2
    is then 1,177 tokens, most of them the file the call writes, and the window 85 + 1,177 =
    1,262, over B with nothing left that may leave (a floor step). It begins with message 0 of
    step 3's window only: a miss, billed 0.1 × 85 + 1,177 = 1,185.5. Evidence: every identifier
    the calls use was first written by the model itself (`/workspace/todo-app` in its first call)
    or appears nowhere before the step (`8000`, the file contents it creates), so there is none:
    evidence kept is null.
    """
    audit = audit_of([OPENHANDS], {"fit": DEFAULT_CONFIGS["fit"]})
    (entry,) = audit.files
    assert (entry["format"], entry["steps"], entry["budget"]) == ("bedrock", 4, 1202)
    series = audit.figures["fit"].series
    assert [s.step for s in series] == [3, 5, 7, 9]
    assert [s.tokens for s in series[:2]] == [174, 1262]
    assert [s.engaged for s in series[:2]] == [False, True]
    assert [s.cache_miss for s in series[:2]] == [True, True]
    assert [s.billed for s in series[:2]] == [174, pytest.approx(1185.5)]
    summary = audit.summary()["configurations"]["fit"]
    assert (summary["evidence"], summary["kept"], summary["evidence_kept"]) == (0, 0, None)
    assert summary["invalid_windows"] == 0


def test_the_evidence_of_a_recorded_run_checked_by_hand() -> None:
    """The SWE-agent run: where each identifier its calls use was first seen.

    By hand, from the sample: the calls' values hold identifiers such as `reproduce_bug.py` (first
    written by the model itself, message 3), `pydicom/pixel_data_handlers/numpy_handler.py`
    (first in the person's issue, message 2, inside a link to the file: a `/` before it, `#`
    after), `287:295` and `required_elements.append` (nowhere before the call). Only
    `required_elements` was first shown by a tool: the file listing at message 12 (its line 287)
    is its first occurrence, so steps 13, 15, 17 and 19, whose edits name it, have one identifier
    of evidence each, and no other step has any. Each of those steps' windows keeps the result
    just before the step (messages 12, 14, 16 and 18 each show `required_elements`), so `fit`
    keeps all four.
    """
    audit = audit_of([SWE_AGENT], {"fit": DEFAULT_CONFIGS["fit"]})
    series = audit.figures["fit"].series
    by_step = {s.step: (s.evidence, s.kept) for s in series}
    assert {step for step, (found, _) in by_step.items() if found} == {13, 15, 17, 19}
    assert all(by_step[step] == (1, 1) for step in (13, 15, 17, 19))
    summary = audit.summary()["configurations"]["fit"]
    assert (summary["evidence"], summary["kept"], summary["evidence_kept"]) == (4, 4, 1.0)


@pytest.mark.parametrize("fraction", [0.35, 0.2])
def test_no_service_window_is_invalid_on_any_sample(fraction: float) -> None:
    audit = audit_of(SAMPLES, SERVICE_CONFIGS, fraction)
    for figures in audit.figures.values():
        assert figures.violations == []
        assert len(figures.series) == sum(len(read_file(path).steps) for path in SAMPLES)
    assert audit.summary()["configurations"]["fit"]["evidence"] > 0


def transcript() -> list[Message]:
    return [
        Message("system", "be brief"),
        Message("user", "start"),
        Message("assistant", tool_calls=(ToolCall("c1", "read", arguments='{"p": "a_1"}'),)),
        Message("tool", "x" * 400, tool_call_id="c1"),
        Message("user", "again"),
        Message("assistant", "ok"),
    ]


def test_the_peers_keep_the_newest_whole_turns_with_the_system() -> None:
    count = counter("estimate")
    form = openai_form(transcript(), None, count)
    assert sliding(form, 10_000) == [0, 1, 2, 3, 4, 5]
    assert sliding(form, 30) == [0, 4, 5]  # the call's turn (its 400-character result) is too big
    assert trim(form, 30) == [0, 4, 5]  # LangChain's, starting on a human message
    assert trim(form, 10) == [0]  # the system alone


def write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    short = write(tmp_path / "short.json", [{"role": "user", "content": "hi"}])
    lines = tmp_path / "run.jsonl"
    sample = json.loads(OPENHANDS.read_text(encoding="utf-8"))
    lines.write_text("\n".join(json.dumps(m) for m in sample["messages"]), encoding="utf-8")
    out_json, out_html = tmp_path / "a.json", tmp_path / "a.html"
    status = cli.main(
        [str(broken), str(short), str(lines), "--json", str(out_json), "--html", str(out_html)]
    )
    assert status == 0
    captured = capsys.readouterr()
    (error,) = captured.err.strip().splitlines()
    assert error.startswith(f"{broken}: ")
    assert f"{short}: no steps" in captured.out
    assert "peer: sliding window" in captured.out
    report = json.loads(out_json.read_text(encoding="utf-8"))
    assert set(report) >= {"budget_fraction", "tokenizer", "files", "configurations"}
    assert report["files"][0] == {"file": str(broken), "error": error.split(": ", 1)[1]}
    assert report["files"][1]["steps"] == 0
    assert report["files"][2]["format"] == "bedrock"  # JSONL, the format detected
    for figures in report["configurations"].values():
        assert set(figures) >= {
            "steps", "engaged_steps", "evidence", "kept", "evidence_kept", "tokens_sent",
            "billed_tokens", "cache_misses", "invalid_windows", "plan_ms_median",
        }  # fmt: skip
    page = out_html.read_text(encoding="utf-8")
    assert (
        "<svg" in page and "<table>" in page and "http://" not in page.replace("http://0.0.0.0", "")
    )


def test_the_configurations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--print-config"]) == 0
    assert json.loads(capsys.readouterr().out) == DEFAULT_CONFIGS
    config = write(
        tmp_path / "c.json",
        {"tight": {"strategy": {"kind": "fit", "max_tokens": "{B}", "target_tokens": 100}}},
    )
    swe = next(path for path in SAMPLES if path.name.startswith("swe-agent"))
    # It keeps all 4 ids of its evidence: 100% passes 1.0 and fails anything above.
    assert cli.main([str(swe), "--config", str(config), "--fail-under", "1.0"]) == 0
    assert "tight                 100.0%            4/4" in capsys.readouterr().out
    assert cli.main([str(swe), "--config", str(config), "--fail-under", "1.01"]) == 1
    assert "tight: evidence kept 100.0% is under 101.0%" in capsys.readouterr().err


# ---- summaries: the scripted summarizer, and the configuration that uses it ----


def call(number: int, path: str) -> dict[str, Any]:
    arguments = {"path": path}
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": f"c{number}", "name": "look", "arguments": arguments}],
    }


def result(number: int, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": f"c{number}", "tool_name": "look", "content": text}


def test_the_scripted_summarizer_keeps_the_ids_of_the_result_texts_in_order() -> None:
    """By its rule: every identifier of the request's result texts, in first-occurrence order,
    once each, joined by single spaces; the person's and the model's own ids are no part of it
    (`run-77` is in the task and in a call's arguments, `v1.2` only in the person's text), and a
    plain word (`deploy`) or a short run (`ab1`) is no identifier."""
    request = {
        "messages": [
            {"role": "user", "content": "Fix run-77 on v1.2"},
            call(1, "run-77"),
            result(1, "run-77 failed at src/app.py:12; see job_9 and ab1 deploy"),
            call(2, "src/app.py"),
            result(2, "src/app.py has 4 lines; job_9 owner@example.org"),
            {"role": "user", "content": "Summarize the conversation above."},
        ]
    }
    text = scripted_summary(dialect_of("native"), request)
    assert text == "run-77 src/app.py:12 job_9 src/app.py owner@example.org"
    key = "k" * 64
    asked = {"from": 1, "through": 4, "key": key, "request": request}
    # An answer for the same messages replaces the entry; the newest 16 are kept.
    old = {"from": 1, "through": 4, "key": key, "summary": "old"}
    assert kept_entries([old], asked, text) == [{**old, "summary": text}]
    many = [{"from": i, "through": i, "key": str(i), "summary": "s"} for i in range(16)]
    kept = [entry["key"] for entry in kept_entries(many, asked, text)]
    assert kept == [*map(str, range(1, 16)), key]


def test_a_summary_keeps_the_evidence_of_the_span_it_replaces(tmp_path: Path) -> None:
    """A native run under a sliding window of one turn, with and without summaries.

    Steps 3, 5 and 7. At step 5 (whose call uses `id_4471`, first shown by the result at
    message 2) the window drops turn 1 (messages 1–2); without summaries the id is gone from it.
    With `summarize` on, that plan asks for a summary of messages 1–2, the request being step 3's
    whole window (messages 0–2) plus the instruction, so all of its tokens but the instruction's
    are a prefix of the window sent before it; the scripted summary (`id_4471 runs hot` has one
    identifier) then stands in the re-planned window where the notice was, and the id is there.
    Step 7 drops turn 2 as well and asks again (the rolling summary of messages 1–4).
    """
    messages = [
        {"role": "user", "content": "Audit the racks."},
        call(1, "racks"),
        result(1, "rack id_4471 runs hot " + "x" * 600),
        call(2, "rooms"),
        result(2, "room list " + "y" * 600),
        call(3, "id_4471"),
        result(3, "ok"),
        {"role": "assistant", "content": "done"},
    ]
    path = write(tmp_path / "run.json", {"format": "native", "messages": messages})
    options = {"strategy": {"kind": "sliding-window", "keep_recent_turns": 1}}
    options["keep_last_tool_results"] = 0
    summarized = {**options, "summarize": {"min_span_tokens": 0}}
    audit = audit_of([path], {"plain": options, "summaries": summarized})
    plain, summaries = audit.figures["plain"].series, audit.figures["summaries"].series
    assert [s.step for s in summaries] == [3, 5, 7]
    assert [(s.evidence, s.kept) for s in plain] == [(0, 0), (1, 0), (0, 0)]
    assert [(s.evidence, s.kept) for s in summaries] == [(0, 0), (1, 1), (0, 0)]
    assert [s.summary_request for s in summaries] == [False, True, True]
    asked = summaries[1]
    count = counter("estimate")
    # Step 3's window is messages 0–2 whole: the request's cached part is exactly those tokens.
    window = read_file(path).messages[:3]
    assert asked.summary_cached == sum(message_tokens(m, count) for m in window)
    assert asked.summary_cached < asked.summary_tokens
    assert asked.summary_billed == pytest.approx(
        0.1 * asked.summary_cached + asked.summary_tokens - asked.summary_cached
    )
    figures = audit.summary()["configurations"]["summaries"]
    assert figures["summary_requests"] == 2 and figures["invalid_windows"] == 0
    total = sum(s.billed + s.summary_billed for s in summaries)
    assert figures["billed_tokens"] == round(total)
    assert audit.summary()["configurations"]["plain"]["summary_cached_share"] is None


@pytest.mark.parametrize("fraction", [0.35, 0.1])
def test_the_summaries_configuration_asks_and_uses_summaries_on_the_samples(
    fraction: float,
) -> None:
    name = "fit + summaries"
    audit = audit_of(SAMPLES, {name: DEFAULT_CONFIGS[name]}, fraction)
    figures = audit.figures[name]
    assert figures.violations == []
    summary = audit.summary()["configurations"][name]
    assert summary["summary_requests"] > 0 and summary["invalid_windows"] == 0
    assert 0 < summary["summary_cached_share"] <= 1


# A crafted run: c1's long result shows id_111, c2's short one id_222, and the call at message 5
# uses both (its only evidence; the steps at 3 and 7 have none). With nothing removed and `clear`
# at keep_last 0, step 1, c1 (the one result read before message 5) is sent as its placeholder
# and c2, unread, whole: id_222 is kept, id_111 is not, but c1's call and placeholder still name
# it. Keeping only the last turn removes c1's turn, and nothing names c1.
RECALL_RUN = [
    {"role": "user", "content": "start"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"p": "a"}'}},
    ]},
    {"role": "tool", "tool_call_id": "c1", "content": "found id_111 " + "x" * 400},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c2", "type": "function", "function": {"name": "grep", "arguments": '{"q": "b"}'}},
    ]},
    {"role": "tool", "tool_call_id": "c2", "content": "found id_222"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c3", "type": "function",
         "function": {"name": "use", "arguments": '{"a": "id_111", "b": "id_222"}'}},
    ]},
    {"role": "tool", "tool_call_id": "c3", "content": "done"},
    {"role": "assistant", "content": "finished"},
]  # fmt: skip
CLEARING = {
    "strategy": {"kind": "sliding-window", "keep_recent_turns": 20},
    "clear": {"keep_last": 0, "step": 1},
    "keep_last_tool_results": 0,
}
RECALL_CONFIGS = {
    "clear": CLEARING,
    "clear + recall": {**CLEARING, "recall": {}},
    "last turn + recall": {
        "strategy": {"kind": "sliding-window", "keep_recent_turns": 1},
        "keep_last_tool_results": 0,
        "recall": {"tool_name": "fetch_back"},
    },
}


def test_evidence_recallable_on_a_crafted_run(tmp_path: Path) -> None:
    path = write(tmp_path / "run.json", {"format": "openai", "messages": RECALL_RUN})
    audit = audit_of([path], RECALL_CONFIGS)
    recalled = audit.figures["clear + recall"].series
    assert [(s.step, s.evidence, s.kept, s.recallable) for s in recalled] == [
        (3, 0, 0, 0), (5, 2, 1, 1), (7, 0, 0, 0)
    ]  # fmt: skip
    figures = audit.summary()["configurations"]
    shares = {
        name: (
            f["evidence_kept"],
            f["recallable"],
            f["evidence_recallable"],
            f["evidence_kept_or_recallable"],
        )
        for name, f in figures.items()
    }
    assert shares == {
        "clear": (0.5, None, None, None),  # recall off: not measured
        "clear + recall": (0.5, 1, 0.5, 1.0),
        "last turn + recall": (0.5, 0, 0.0, 0.5),
    }
    assert [s.recallable for s in audit.figures["clear"].series] == [None, None, None]


def test_evidence_recallable_is_null_without_evidence() -> None:
    audit = audit_of([OPENHANDS], {"fit + clear + recall": DEFAULT_CONFIGS["fit + clear + recall"]})
    figures = audit.summary()["configurations"]["fit + clear + recall"]
    assert (figures["evidence"], figures["recallable"]) == (0, 0)
    assert figures["evidence_recallable"] is None
    assert figures["evidence_kept_or_recallable"] is None


def test_the_recall_figures_in_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "run.json", {"format": "openai", "messages": RECALL_RUN})
    config = write(tmp_path / "c.json", {**RECALL_CONFIGS, "sliding": {"peer": "sliding"}})
    out_json, out_html = tmp_path / "a.json", tmp_path / "a.html"
    assert cli.main([str(path), "--config", str(config), "--json", str(out_json),
                     "--html", str(out_html)]) == 0  # fmt: skip
    report = json.loads(out_json.read_text(encoding="utf-8"))["configurations"]
    for name, figures in report.items():
        assert "evidence_recallable" in figures and "evidence_kept_or_recallable" in figures, name
    assert report["clear"]["evidence_recallable"] is None
    assert report["sliding"]["evidence_kept_or_recallable"] is None
    assert report["clear + recall"]["evidence_recallable"] == 0.5
    assert report["clear + recall"]["evidence_kept_or_recallable"] == 1.0
    lines = capsys.readouterr().out.splitlines()
    assert "recallable" in lines[1] and "kept + recallable" in lines[1]
    row = next(line for line in lines if line.startswith("clear + recall"))
    assert row.split()[3:7] == ["50.0%", "1/2", "50.0%", "100.0%"]
    off = next(line for line in lines if line.startswith("clear "))
    assert off.split()[1:5] == ["50.0%", "1/2", "–", "–"]
    page = out_html.read_text(encoding="utf-8")
    assert "<th>kept + recallable</th>" in page and "<td>100.0%</td>" in page


def test_the_default_set_has_clear_with_recall() -> None:
    assert DEFAULT_CONFIGS["fit + clear + recall"] == {
        "strategy": {"kind": "fit", "max_tokens": "{B}"},
        "clear": {},
        "recall": {},
    }
