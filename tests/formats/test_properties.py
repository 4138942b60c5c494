"""Property tests over random transcripts in each format.

For a random whole-turn removal and an optional notice, the window holds only the caller's
messages (or, for Anthropic, the caller's blocks of a message) as the very objects sent, plus the
notice, in order; it holds exactly the kept core messages; and its length is the planner's
`messages_after` count (runs of equal consecutive source, the notice one more).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.core.messages import Message, caller_index
from app.formats import read_messages, write_window
from tests.formats.support import run_count, turn_bounds

NOTICE = "[dropped history — 4 earlier message(s) were removed from this window]"

Draw = Callable[[st.SearchStrategy[Any]], Any]

texts = st.text(max_size=6)
json_scalars = st.none() | st.booleans() | st.integers(-5, 5) | texts
json_values = (
    json_scalars
    | st.lists(json_scalars, max_size=2)
    | st.dictionaries(texts, json_scalars, max_size=2)
)
EXTRA_KEYS = ("meta", "name", "trace_id", "cache_control")


def with_extras(draw: Draw, message: dict[str, Any]) -> dict[str, Any]:
    """Caller fields the service must keep: extension flags and keys it never reads."""
    if draw(st.booleans()):
        message["injected"] = draw(st.booleans())
    for key in draw(st.lists(st.sampled_from(EXTRA_KEYS), max_size=2, unique=True)):
        message[key] = draw(json_values)
    return message


class Ids:
    """Fresh call ids for one transcript (duplicates are legal but not what this tests)."""

    def __init__(self) -> None:
        self.count = 0

    def next(self) -> str:
        self.count += 1
        return f"call_{self.count}"


# ---- native ---------------------------------------------------------------------------------


@st.composite
def native_transcripts(draw: Draw) -> list[Any]:
    ids = Ids()
    raw: list[Any] = []
    if draw(st.booleans()):
        raw.append({"role": "tool", "tool_call_id": ids.next(), "content": draw(texts)})
    steps = ("system", "user", "assistant", "calls")
    for step in draw(st.lists(st.sampled_from(steps), min_size=1, max_size=10)):
        if step != "calls":
            content = draw(st.none() | texts)
            raw.append(with_extras(draw, {"role": step, "content": content}))
            continue
        calls = [
            {"id": ids.next(), "name": draw(st.sampled_from(["look", "move", ""])), "arguments": {}}
            for _ in range(draw(st.integers(1, 3)))
        ]
        raw.append(with_extras(draw, {"role": "assistant", "content": "", "tool_calls": calls}))
        for call in calls:
            if draw(st.booleans()):
                result = {"role": "tool", "tool_call_id": call["id"], "content": draw(texts)}
                if draw(st.booleans()):
                    result["tool_name"] = call["name"]
                if draw(st.booleans()):
                    result["not_dispatched"] = True
                raw.append(with_extras(draw, result))
    return raw


# ---- openai ---------------------------------------------------------------------------------


def openai_content(draw: Draw, role: str) -> Any:
    part_types = ["text", "image_url", "file"] + (["refusal"] if role == "assistant" else [])
    parts = []
    for part_type in draw(st.lists(st.sampled_from(part_types), max_size=3)):
        if part_type in ("text", "refusal"):
            parts.append({"type": part_type, part_type: draw(texts)})
        else:
            parts.append({"type": part_type, part_type: {"id": draw(texts)}})
    return draw(st.sampled_from([draw(texts), parts]))


@st.composite
def openai_transcripts(draw: Draw) -> list[Any]:
    ids = Ids()
    raw: list[Any] = []
    steps = ("system", "developer", "user", "assistant", "calls")
    for step in draw(st.lists(st.sampled_from(steps), min_size=1, max_size=10)):
        if step != "calls":
            message = {"role": step, "content": openai_content(draw, step)}
            raw.append(with_extras(draw, message))
            continue
        calls = []
        for _ in range(draw(st.integers(1, 3))):
            if draw(st.booleans()):
                spec = {"name": draw(st.sampled_from(["look", "move"])), "arguments": "{}"}
                calls.append({"id": ids.next(), "type": "function", "function": spec})
            else:
                spec = {"name": "grep", "input": draw(texts)}
                calls.append({"id": ids.next(), "type": "custom", "custom": spec})
        content = draw(st.none() | texts)
        raw.append(
            with_extras(draw, {"role": "assistant", "content": content, "tool_calls": calls})
        )
        for call in calls:
            if draw(st.booleans()):
                result: dict[str, Any] = {"role": "tool", "tool_call_id": call["id"]}
                result["content"] = openai_content(draw, "tool")
                if draw(st.booleans()):
                    result["not_dispatched"] = True
                raw.append(with_extras(draw, result))
    return raw


# ---- anthropic ------------------------------------------------------------------------------


def other_block(draw: Draw) -> dict[str, Any]:
    kind = draw(st.sampled_from(["text", "text", "image", "document"]))
    if kind == "text":
        block: dict[str, Any] = {"type": "text", "text": draw(texts)}
    else:
        block = {"type": kind, "source": {"type": "base64", "data": draw(texts)}}
    if draw(st.booleans()):
        block["cache_control"] = {"type": "ephemeral"}
    return block


def tool_result_block(draw: Draw, call_id: str) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
    shape = draw(st.sampled_from(["absent", "string", "blocks"]))
    if shape == "string":
        block["content"] = draw(texts)
    elif shape == "blocks":
        block["content"] = [other_block(draw) for _ in range(draw(st.integers(0, 2)))]
    if draw(st.booleans()):
        block["is_error"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        block["not_dispatched"] = True
    return block


def assistant_message(draw: Draw, ids: Ids, calling: bool) -> tuple[dict[str, Any], list[str]]:
    """An assistant message and the ids of its calls; a `calling` one makes at least one."""
    if not calling and draw(st.integers(0, 3)) == 0:
        return {"role": "assistant", "content": draw(texts)}, []
    blocks: list[dict[str, Any]] = []
    calls: list[str] = []
    kinds = ["text", "tool_use", "thinking", "redacted_thinking", "server_tool_use"]
    chosen = draw(st.lists(st.sampled_from(kinds), max_size=3))
    if calling:
        chosen = draw(st.permutations(chosen + ["tool_use"] * draw(st.integers(1, 3))))
    for kind in chosen:
        if kind == "text":
            blocks.append({"type": "text", "text": draw(texts)})
        elif kind == "tool_use":
            calls.append(ids.next())
            blocks.append({"type": "tool_use", "id": calls[-1], "name": "look", "input": {}})
        elif kind == "thinking":
            blocks.append({"type": "thinking", "thinking": draw(texts), "signature": "s"})
        elif kind == "redacted_thinking":
            blocks.append({"type": "redacted_thinking", "data": draw(texts)})
        else:
            server_id = ids.next()
            blocks.append({"type": "server_tool_use", "id": server_id, "name": "web", "input": {}})
            blocks.append(
                {"type": "web_search_tool_result", "tool_use_id": server_id, "content": []}
            )
    if draw(st.integers(0, 3)) == 0:
        # A compaction block: the provider's summary (the last one is the artifact) or a failed
        # one; mostly first, as the provider writes it.
        content = draw(st.sampled_from([None, "", "Summary so far.", "Earlier summary."]))
        place = 0 if draw(st.booleans()) else draw(st.integers(0, len(blocks)))
        blocks.insert(place, {"type": "compaction", "content": content})
    return {"role": "assistant", "content": blocks}, calls


def user_message(draw: Draw, pending: list[str]) -> dict[str, Any]:
    answered = [call_id for call_id in pending if draw(st.integers(0, 3)) > 0]
    results = [tool_result_block(draw, call_id) for call_id in answered]
    others = [other_block(draw) for _ in range(draw(st.sampled_from([0, 1, 1, 2])))]
    if not results and not others and draw(st.booleans()):
        return {"role": "user", "content": draw(texts)}
    return {"role": "user", "content": list(draw(st.permutations([*results, *others])))}


@st.composite
def anthropic_transcripts(draw: Draw) -> list[Any]:
    ids = Ids()
    raw: list[Any] = []
    pending: list[str] = []
    steps = ("user", "assistant", "exchange", "exchange")
    for step in draw(st.lists(st.sampled_from(steps), min_size=1, max_size=8)):
        if step == "user":
            raw.append(with_extras(draw, user_message(draw, pending)))
            pending = []
            continue
        message, pending = assistant_message(draw, ids, calling=step == "exchange")
        raw.append(with_extras(draw, message))
        if step == "exchange":
            raw.append(with_extras(draw, user_message(draw, pending)))
            pending = []
    return raw


TRANSCRIPTS = {
    "native": native_transcripts(),
    "openai": openai_transcripts(),
    "anthropic": anthropic_transcripts(),
}


# ---- checks ---------------------------------------------------------------------------------


def kept_positions(
    core: Sequence[Message], removed: tuple[int, int], notice: bool
) -> Iterator[int]:
    """Core positions in window order, -1 where the notice goes."""
    start, end = removed
    return chain(range(start), [-1] if notice else [], range(end, len(core)))


def expected_pieces(
    core: Sequence[Message], removed: tuple[int, int], notice: bool, format: str
) -> list[Any]:
    """What the window must hold: "notice", or per run (caller index, its kept blocks)."""
    pieces: list[Any] = []
    for position in kept_positions(core, removed, notice):
        if position < 0:
            pieces.append("notice")
            continue
        message = core[position]
        last = pieces[-1] if pieces else None
        if isinstance(last, tuple) and last[0] == message.source:
            pieces[-1] = (last[0], last[1] + message.blocks)
        else:
            pieces.append((message.source, message.blocks))
    if format != "anthropic":
        return [piece if piece == "notice" else (piece[0], ()) for piece in pieces]
    return [piece if piece == "notice" else (piece[0], tuple(sorted(piece[1]))) for piece in pieces]


def window_pieces(window: list[Any], raw: list[Any], format: str) -> list[Any]:
    """What the window holds, each item traced to the caller's own objects by identity."""
    message_at = {id(message): index for index, message in enumerate(raw)}
    block_at = {
        id(block): (index, position)
        for index, message in enumerate(raw)
        if isinstance(message["content"], list)
        for position, block in enumerate(message["content"])
    }
    notice = write_window([], [], ((0, 0),), NOTICE, format)[0]
    pieces: list[Any] = []
    for item in window:
        if id(item) in message_at:
            index = message_at[id(item)]
            content = raw[index].get("content")
            whole = tuple(range(len(content))) if isinstance(content, list) else ()
            pieces.append((index, whole if format == "anthropic" else ()))
        elif item == notice and id(item) not in block_at:
            pieces.append("notice")
        else:
            pieces.append(rebuilt_piece(item, raw, block_at))
    return pieces


def rebuilt_piece(
    item: dict[str, Any], raw: list[Any], block_at: dict[int, tuple[int, int]]
) -> Any:
    """A caller message rebuilt with fewer blocks: every block and every other key verbatim."""
    places = [block_at[id(block)] for block in item["content"]]
    [index] = {place[0] for place in places}
    original = raw[index]
    assert list(item) == list(original)
    assert all(item[key] is original[key] for key in original if key != "content")
    positions = tuple(place[1] for place in places)
    assert list(positions) == sorted(set(positions))
    assert 0 < len(positions) < len(original["content"])
    return (index, positions)


def as_read_back(message: Message) -> Message:
    return message._replace(source=None, blocks=())


@st.composite
def planned(draw: Draw, format: str) -> tuple[list[Any], list[Message], tuple[int, int], bool]:
    raw = draw(TRANSCRIPTS[format])
    core = read_messages(raw, format)
    turns = turn_bounds(core)
    # An Anthropic system message is the compaction artifact: it never leaves (and with it gone,
    # an earlier summary would read as the artifact).
    held = [
        k
        for k, (start, _) in enumerate(turns)
        if format == "anthropic" and core[start].role == "system"
    ]
    free = [k for k in range(len(turns)) if k not in held]
    if not free:
        return raw, core, (0, 0), draw(st.booleans())
    first = draw(st.sampled_from(free))
    bound = min([k for k in held if k > first], default=len(turns))
    last = draw(st.integers(first, bound - 1))
    return raw, core, (turns[first][0], turns[last][1]), draw(st.booleans())


def check_whole_turn_removal(
    raw: list[Any], core: list[Message], removed: tuple[int, int], notice: bool, format: str
) -> None:
    text = NOTICE if notice else None
    window = write_window(raw, core, (removed,), text, format)
    assert len(window) == run_count(core, removed, notice)
    pieces = window_pieces(window, raw, format)
    assert pieces == expected_pieces(core, removed, notice, format)
    indices = [piece[0] for piece in pieces if piece != "notice"]
    assert indices == sorted(set(indices))
    # Read back, the window is exactly the kept core messages with the notice in the gap.
    kept = [
        Message("user", NOTICE) if position < 0 else as_read_back(core[position])
        for position in kept_positions(core, removed, notice)
    ]
    assert [as_read_back(m) for m in read_messages(window, format)] == kept


def check_reading(raw: list[Any], core: list[Message], format: str) -> None:
    """Every caller message gives at least one core message, in order, so the run count of the
    transcript is the caller's message count; nothing removed gives the caller's list back."""
    sources = [caller_index(core, position) for position in range(len(core))]
    assert sources == sorted(sources)
    assert sorted(set(sources)) == list(range(len(raw)))
    assert run_count(core, (0, 0), False) == len(raw)
    assert write_window(raw, core, (), None, format) == raw


@given(planned("native"))
def test_native_window_property(
    case: tuple[list[Any], list[Message], tuple[int, int], bool],
) -> None:
    raw, core, removed, notice = case
    check_reading(raw, core, "native")
    check_whole_turn_removal(raw, core, removed, notice, "native")


@given(planned("openai"))
def test_openai_window_property(
    case: tuple[list[Any], list[Message], tuple[int, int], bool],
) -> None:
    raw, core, removed, notice = case
    check_reading(raw, core, "openai")
    check_whole_turn_removal(raw, core, removed, notice, "openai")


@given(planned("anthropic"))
def test_anthropic_window_property(
    case: tuple[list[Any], list[Message], tuple[int, int], bool],
) -> None:
    raw, core, removed, notice = case
    check_reading(raw, core, "anthropic")
    check_whole_turn_removal(raw, core, removed, notice, "anthropic")


@given(anthropic_transcripts(), st.data())
def test_anthropic_any_range_merges_into_runs(raw: list[Any], data: st.DataObject) -> None:
    """Beyond whole turns, any core range: the run count still holds, and head and tail parts of
    one caller message merge back into it when nothing is inserted between them."""
    core = read_messages(raw, "anthropic")
    start = data.draw(st.integers(0, len(core)))
    end = min(len(core), start + data.draw(st.integers(0, 3)))
    notice = data.draw(st.booleans())
    window = write_window(raw, core, ((start, end),), NOTICE if notice else None, "anthropic")
    assert len(window) == run_count(core, (start, end), notice)
    assert window_pieces(window, raw, "anthropic") == expected_pieces(
        core, (start, end), notice, "anthropic"
    )
