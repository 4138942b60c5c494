"""What an answer with `clear` on says beyond a plain plan's: the record's `cleared_results`, the
clear-only record under `fit`, and `budget.clear_held` (docs/rules.md#holding-the-boundary).

The shaping properties compare a shaped plan with the plain plan of the shaped transcript; these
keys are the only part of the answer that differs, and `plain_view` checks them and takes them
out, so each property states the difference once."""

from __future__ import annotations

from typing import Any


def plain_view(answer: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """`answer` as the plain plan of its shaped transcript would give it, after checking the
    clear keys are there exactly when the request has `clear` on."""
    record, budget = answer["record"], answer.get("budget")
    if "clear" not in options:
        assert record is None or "cleared_results" not in record
        assert budget is None or "clear_held" not in budget
        return answer
    view = dict(answer)
    if budget is not None:
        assert budget["clear_held"] is False  # no record held a boundary in these requests
        view["budget"] = {k: v for k, v in budget.items() if k != "clear_held"}
    if record is not None:
        assert isinstance(record["cleared_results"], int) and record["cleared_results"] >= 0
        rest = {k: v for k, v in record.items() if k != "cleared_results"}
        if not answer["engaged"]:  # the clear-only record of a `fit` plan
            assert answer["strategy"] == "fit"
            assert rest["removed_message_count"] == 0 and rest["refusals"] == []
            assert rest["pins"] == {"last_tool_result": None, "ledger_fact": None}
            rest = None
        view["record"] = rest
    return view
