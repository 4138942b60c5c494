"""The recall core (docs/rules.md#answering-a-recall): terms, scores and order, snippets, the
20-hit cap, headers, the sentences of nothing found, and pages, checked on exact strings."""

from __future__ import annotations

from app.core.recall import (
    Recallable,
    Recalled,
    lowered,
    query_terms,
    recall,
    snippet,
)

ELL = "…"


def user(index: int, text: str) -> Recallable:
    return Recallable(index, "user", text)


def assistant(index: int, text: str) -> Recallable:
    return Recallable(index, "assistant", text)


def result(index: int, text: str, call_id: str, name: str | None = None) -> Recallable:
    return Recallable(index, "tool", text, call_id, name)


# ---- terms ---------------------------------------------------------------------------------------


def test_terms_are_identifier_runs_trimmed_lowered_first_occurrence_order() -> None:
    query = "Where is src/dates.py? id:#42, a1 at @bob... --x-- ok SRC/dates.py WHERE"
    assert query_terms(query) == ["where", "src/dates.py", "id:#42", "a1", "@bob"]


def test_a_term_is_three_characters_or_two_with_a_digit() -> None:
    assert query_terms("ab a9 9 abc") == ["a9", "abc"]
    assert query_terms("/./ab/.") == []  # trimmed to "ab"
    assert query_terms(":-:42-:") == ["42"]
    assert query_terms("user_id=7 http://h.io/x") == ["user_id", "http://h.io/x"]


def test_trimming_keeps_inner_separators_and_leading_hash_and_at() -> None:
    assert query_terms("#issue-12. @me: ../a/b.c/") == ["#issue-12", "@me", "a/b.c"]


def test_lowercasing_is_per_character_and_keeps_positions() -> None:
    assert lowered("Aİb") == "aİb"  # "İ".lower() is two characters: it stays
    assert lowered("ΟΔΟΣ") == "οδοσ"  # no final-sigma rule: each character alone
    assert lowered("ABC") == "abc"


# ---- query: scores, order, headers, snippets -----------------------------------------------------


HISTORY = [
    user(1, "The billing service fails on port 8443."),
    assistant(2, 'grep {"pattern":"8443"}'),
    result(3, "config/billing.yaml: port: 8443", "call_1", "grep"),
    assistant(4, "Checking the deploy log next."),
    result(5, "deploy billing@4f2a ok", "call_2"),
]


def test_query_scores_then_newest_first_with_headers() -> None:
    answer = recall(HISTORY, None, "billing 8443")
    assert answer == Recalled(
        True,
        "[message 3 · result of grep · ref call_1]\nconfig/billing.yaml: port: 8443\n\n"
        "[message 1 · user]\nThe billing service fails on port 8443.\n\n"
        "[message 5 · result · ref call_2]\ndeploy billing@4f2a ok\n\n"
        '[message 2 · assistant]\ngrep {"pattern":"8443"}',
        1,
        1,
        4,
    )


def test_matching_ignores_case_of_the_text() -> None:
    answer = recall([user(0, "See BILLING.yaml")], None, "billing.YAML")
    assert answer.text == "[message 0 · user]\nSee BILLING.yaml"
    assert answer.hits == 1


def test_a_long_text_is_cut_around_the_first_match_with_both_marks() -> None:
    text = "a" * 500 + "NEEDLE" + "b" * 494  # 1,000 characters, the term at 500
    answer = recall([result(7, text, "c9", "read")], None, "needle")
    assert answer.text == f"[message 7 · result of read · ref c9]\n{ELL}{text[200:800]}{ELL}"


def test_snippet_marks_only_where_cut() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(1000))
    assert snippet(text, 100) == text[:600] + ELL
    assert snippet(text, 950) == ELL + text[400:]
    assert snippet(text, 300) == text[:600] + ELL
    assert snippet(text, 301) == ELL + text[1:601] + ELL
    assert snippet("x" * 600, 599) == "x" * 600


def test_the_snippet_starts_from_the_earliest_match_of_any_term() -> None:
    text = "z" * 700 + "beta" + "z" * 296 + "alpha"  # 1,005 characters
    answer = recall([user(0, text)], None, "alpha beta")
    assert answer.text == f"[message 0 · user]\n{ELL}{text[400:1000]}{ELL}"


def test_only_the_first_twenty_hits_are_written_and_all_are_counted() -> None:
    entries = [user(index, f"step {index} token42") for index in range(25)]
    answer = recall(entries, None, "token42")
    assert answer.hits == 25
    assert answer.text == "\n\n".join(
        f"[message {index} · user]\nstep {index} token42" for index in range(24, 4, -1)
    )


def test_no_term_and_no_hit_sentences() -> None:
    assert recall(HISTORY, None, "a to ?? .. -") == Recalled(
        False, "No searchable words in the query.", 1, 1, 0
    )
    assert recall(HISTORY, None, "zebra Q7 zebra") == Recalled(
        False, "Nothing earlier in this conversation matches: zebra, q7.", 1, 1, 0
    )


# ---- ref -----------------------------------------------------------------------------------------


def test_ref_joins_every_result_of_the_call_in_order() -> None:
    entries = [
        result(1, "first", "c1"),
        user(2, "c1 mentioned"),
        result(3, "other", "c2"),
        result(4, "second", "c1"),
    ]
    assert recall(entries, "c1", None) == Recalled(True, "first\nsecond", 1, 1, None)


def test_ref_not_found() -> None:
    assert recall(HISTORY, "call_9", None) == Recalled(
        False, "No result with id call_9 in this conversation.", 1, 1, None
    )


def test_an_empty_result_is_found_on_one_empty_page() -> None:
    assert recall([result(0, "", "c1")], "c1", None) == Recalled(True, "", 1, 1, None)


# ---- pages ---------------------------------------------------------------------------------------


def test_pages_cut_the_text_and_a_page_past_the_end_is_empty() -> None:
    text = "".join(str(i % 10) for i in range(600))
    entries = [result(0, text, "c1")]
    assert recall(entries, "c1", None, page=1, max_chars=256) == Recalled(
        True, text[:256], 1, 3, None
    )
    assert recall(entries, "c1", None, page=3, max_chars=256) == Recalled(
        True, text[512:], 3, 3, None
    )
    assert recall(entries, "c1", None, page=4, max_chars=256) == Recalled(True, "", 4, 3, None)
    missing = recall(entries, "c2", None, page=2, max_chars=256)
    assert missing == Recalled(False, "", 2, 1, None)
