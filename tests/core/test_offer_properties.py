"""Properties of the offer and the collapsed view over generated transcripts and ledgers."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from app.core.collapse import COLLAPSE_MODES, CollapseMode, collapse, is_ticket, ticket_for
from app.core.ledger import RETIRING, STANDINGS, Standing, StandingRow, fold_ledger
from app.core.messages import Message, ToolCall, is_result
from app.core.offer import BatchEntry, known_results, nameable, offer, served_ids, undeclared

IDS = ["a", "b", "c", "d", "e", "f"]
NAMES = ["lookup_port", "fetch_log", ""]

ids = st.sampled_from(IDS)
maybe_id = st.one_of(ids, st.just(""), st.none())
maybe_name = st.one_of(st.none(), st.sampled_from(NAMES))
texts = st.sampled_from(["", "p1 state: down", "late result", '{"collapsed":true}', "dup"])

user_messages = st.builds(Message, st.just("user"), texts)
assistant_messages = st.builds(
    Message,
    st.just("assistant"),
    texts,
    st.lists(st.builds(ToolCall, ids, st.sampled_from(NAMES)), max_size=3).map(tuple),
)
tool_messages = st.builds(
    Message,
    st.just("tool"),
    texts,
    tool_call_id=maybe_id,
    tool_name=maybe_name,
    not_dispatched=st.booleans(),
)
transcripts = st.lists(st.one_of(user_messages, assistant_messages, tool_messages), max_size=30)
rows = st.builds(
    StandingRow,
    st.one_of(ids, st.sampled_from(["0", "zz", ""])),
    st.sampled_from(STANDINGS),
    maybe_name,
    st.one_of(st.none(), st.sampled_from(["art_1", "art_9f3c"])),
)
ledgers = st.lists(rows, max_size=12)
batches = st.lists(
    st.builds(BatchEntry, st.one_of(ids, st.just("")), maybe_name, texts), max_size=4
)
limits = st.integers(min_value=1, max_value=8)
modes = st.sampled_from(COLLAPSE_MODES)


@dataclass(frozen=True)
class Case:
    messages: list[Message]
    ledger: list[StandingRow]
    batch: list[BatchEntry]
    limit: int


cases = st.builds(Case, transcripts, ledgers, batches, limits)


@given(cases)
def test_every_offered_id_resolves_in_known_results(case: Case) -> None:
    answer = offer(case.messages, fold_ledger(case.ledger), case.batch, case.limit)
    known_ids = [entry["tool_call_id"] for entry in answer.known_results]
    assert len(known_ids) == len(set(known_ids))
    assert set(answer.offered) <= set(known_ids)
    assert "" not in known_ids


@given(cases)
def test_offered_is_nameable_reversed_and_listed_is_its_head(case: Case) -> None:
    answer = offer(case.messages, fold_ledger(case.ledger), case.batch, case.limit)
    assert list(answer.offered) == list(answer.nameable)[::-1]
    assert answer.listed == answer.offered[: case.limit]
    assert answer.omitted == len(answer.offered) - len(answer.listed) >= 0


@given(cases)
def test_undeclared_is_within_nameable_within_served(case: Case) -> None:
    fold = fold_ledger(case.ledger)
    answer = offer(case.messages, fold, case.batch, case.limit)
    assert set(answer.undeclared) <= set(answer.nameable) <= set(answer.served)
    assert [i for i in answer.nameable if i in set(answer.undeclared)] == list(answer.undeclared)
    assert all(i not in fold for i in answer.undeclared)
    assert all(fold[i].standing in ("fact", "open") for i in answer.nameable if i in fold)


@given(cases)
def test_served_ids_are_the_results_each_once(case: Case) -> None:
    served = served_ids(case.messages)
    assert len(served) == len(set(served))
    assert set(served) == {m.tool_call_id for m in case.messages if is_result(m) and m.tool_call_id}


@given(cases, st.data())
def test_refiling_a_retired_id_as_fact_brings_it_back(case: Case, data: st.DataObject) -> None:
    served = served_ids(case.messages)
    if not served:
        return
    target = data.draw(st.sampled_from(served))
    retiring: Standing = data.draw(st.sampled_from(sorted(RETIRING)))
    retired = [*case.ledger, StandingRow(target, retiring)]
    back = [*retired, StandingRow(target, "fact")]
    assert target not in offer(case.messages, fold_ledger(retired), case.batch).offered
    assert target not in nameable(served, fold_ledger(retired))
    brought_back = offer(case.messages, fold_ledger(back), case.batch)
    assert target in brought_back.offered
    assert target not in undeclared(served, fold_ledger(back))
    # The revision changes nothing but the target's place in the sets.
    before = offer(case.messages, fold_ledger(case.ledger), case.batch)
    assert [i for i in brought_back.offered if i != target] == [
        i for i in before.offered if i != target
    ]


@given(cases, modes)
def test_collapse_is_idempotent_and_changes_only_content(case: Case, mode: CollapseMode) -> None:
    fold = fold_ledger(case.ledger)
    view, changed = collapse(case.messages, fold, mode)
    assert len(view) == len(case.messages)
    assert changed == sorted(set(changed))
    for index, (old, new) in enumerate(zip(case.messages, view, strict=True)):
        assert (old.role, old.tool_call_id, old.tool_name, old.tool_calls) == (
            new.role,
            new.tool_call_id,
            new.tool_name,
            new.tool_calls,
        )
        assert (old.not_dispatched, old.injected, old.source, old.blocks) == (
            new.not_dispatched,
            new.injected,
            new.source,
            new.blocks,
        )
        if index in changed:
            assert is_result(old) and old.tool_call_id
            assert new.content == ticket_for(fold[old.tool_call_id]) != old.content
            assert is_ticket(new.content)
        else:
            assert new == old
    again, changed_again = collapse(view, fold, mode)
    assert changed_again == []
    assert again == view


@given(cases, modes)
def test_collapse_keeps_every_set_of_the_offer(case: Case, mode: CollapseMode) -> None:
    fold = fold_ledger(case.ledger)
    view, _ = collapse(case.messages, fold, mode)
    before = offer(case.messages, fold, case.batch, case.limit)
    after = offer(view, fold, case.batch, case.limit)
    assert (before.served, before.undeclared, before.nameable, before.offered) == (
        after.served,
        after.undeclared,
        after.nameable,
        after.offered,
    )


@given(cases)
def test_ledger_only_collapses_at_least_what_ledger_and_facts_does(case: Case) -> None:
    fold = fold_ledger(case.ledger)
    _, narrow = collapse(case.messages, fold, "ledger-and-facts")
    _, wide = collapse(case.messages, fold, "ledger-only")
    assert set(narrow) <= set(wide)


@given(transcripts, batches)
def test_known_results_read_the_batch_first(
    messages: list[Message], batch: list[BatchEntry]
) -> None:
    known = known_results(messages, batch)
    first_batch: dict[str, str] = {}
    for batch_entry in batch:
        if batch_entry.tool_call_id:
            first_batch.setdefault(batch_entry.tool_call_id, batch_entry.result)
    for entry in known:
        if entry["tool_call_id"] in first_batch:
            assert entry["result"] == first_batch[entry["tool_call_id"]]
    assert [e["tool_call_id"] for e in known][: len(first_batch)] == list(first_batch)
    # A name is reported only when one is known: never an empty one.
    assert all(entry.get("tool_name", "x") for entry in known)
