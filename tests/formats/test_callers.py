"""`CallerMessages` on the Python path: a plain list, and the list with shaped results replaced.

Every dialect's one writer reads the caller's messages through this protocol; the compiled
reader's scanned messages are held to the same answers in `tests/api/test_compiled_windows.py`.
"""

from __future__ import annotations

import orjson

from app.formats import dialect_of, read_messages
from app.formats.callers import ListCallers, Reshaped, caller_messages, only_blocks

TOOL_TURN = [
    {"role": "user", "content": "look"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "looking"},
            {"type": "tool_use", "id": "c1", "name": "look", "input": {}},
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "a wall"},
            {"type": "text", "text": "and now?"},
        ],
    },
]


def test_a_list_is_its_own_messages() -> None:
    callers = ListCallers(TOOL_TURN)
    assert caller_messages(TOOL_TURN).verbatim(1) is TOOL_TURN[1]
    assert caller_messages(callers) is callers
    assert callers.verbatim_slice(1, 3) == TOOL_TURN[1:3]
    assert callers.verbatim_slice(0, 3) is not TOOL_TURN
    assert list(callers) == TOOL_TURN and len(callers) == 3
    assert len(callers.head(2)) == 2 and callers.head(2)[1] is TOOL_TURN[1]


def test_a_message_keeping_some_blocks_is_a_copy() -> None:
    message = TOOL_TURN[2]
    assert only_blocks(message, [0, 1], "content") is message
    assert only_blocks(TOOL_TURN[0], [], "content") is TOOL_TURN[0]  # string content
    kept = only_blocks(message, [1], "content")
    assert kept == {"role": "user", "content": [message["content"][1]]}
    assert kept["content"][0] is message["content"][1]


def test_replaced_messages_stand_in_everywhere() -> None:
    new = {
        "role": "user",
        "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}],
    }
    reshaped = Reshaped(ListCallers(TOOL_TURN), {2: new})
    assert reshaped[2] is new and reshaped.verbatim(2) is new and reshaped[0] is TOOL_TURN[0]
    assert reshaped.verbatim_slice(1, 3) == [TOOL_TURN[1], new]
    assert reshaped.verbatim_slice(0, 2) == TOOL_TURN[:2]
    assert reshaped.with_blocks(2, [1], "content") == {
        "role": "user",
        "content": [new["content"][1]],
    }
    assert reshaped.with_blocks(1, [0, 1], "content") is TOOL_TURN[1]
    assert list(reshaped) == [*TOOL_TURN[:2], new]
    assert list(reshaped.head(2)) == TOOL_TURN[:2]


def test_a_list_and_its_wrapping_write_the_same_window() -> None:
    dialect = dialect_of("anthropic")
    core = read_messages(TOOL_TURN, "anthropic")
    for removed, notice, shaped in [
        ((), None, {}),
        (((0, 2),), "notice", {}),
        (((0, 2),), None, {2: "short"}),
        ((), None, {2: "short"}),
    ]:
        plain = dialect.write_window(TOOL_TURN, core, removed, notice, shaped)
        wrapped = dialect.write_window(ListCallers(TOOL_TURN), core, removed, notice, shaped)
        assert orjson.dumps(plain) == orjson.dumps(wrapped)
