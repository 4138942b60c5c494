"""Shaping: judged results sent as tickets, old read results as a placeholder and oversized ones as
the cap's marker, before planning.

The window an agent sends should carry what the model still needs, not every byte the tools ever
returned: a result the model already set aside (`noise`, `ruled-out`, and under `ledger-only` a
`fact` the ledger now holds) goes on the wire as the short ticket of
`docs/rules.md#collapsed-tickets`, an old result the model has already read as the placeholder of
`docs/rules.md#clear` (which results, `app.core.clear` decides), and a result too large for any
window as the marker of `docs/rules.md#the-decision` and `#the-marker`. This module decides the
order of those rules for each result (already shaped, collapse, clear, cap) and what is reported.
The plan then runs on the shaped transcript, so removal and the notice ladder weigh what the wire
will really carry.

What it deliberately does not do: shape anything but result messages, lengthen a text (a ticket or
a marker is used only when strictly shorter; a placeholder only when `app.core.clear` chose it,
shorter or replacing a result's images), or undo itself. A text that already is a ticket, a marker
or a placeholder stays as it is, whatever the options and the ledger say now, so shaping a shaped
window changes nothing; a result the model re-judges `fact` comes back in full only when the agent
plans from its committed transcript, as it should. The ticket and the marker are built by
`app.core.collapse` and `app.core.cap`, the same functions the offer and `POST
/v1/tool-results/cap` use, so the strings are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import orjson

from app.core.cap import is_truncated, marker_for
from app.core.clear import is_placeholder
from app.core.collapse import COLLAPSING, CollapseMode, collapsing_row, is_ticket, ticket_for
from app.core.images import IMAGE_REMOVED_TEXT
from app.core.ledger import StandingRow
from app.core.messages import Message
from app.core.names import first_call_names, name_of
from app.core.plan_types import CapOption, ShapeAction, ShapedResult

# A caller message's entries in `shaped`: its results (core order), then its image replacements,
# then its reasoning's removal (docs/rules.md#images-and-thinking).
ACTION_RANK: dict[ShapeAction, int] = {"image-cleared": 1, "thinking-cleared": 2}

# The tool name a marker gives a result no name can be recovered for.
UNNAMED_TOOL = "the tool"


def is_shaped(text: str) -> bool:
    """Whether a result's text already is a ticket, a cap marker or a clear placeholder (compact
    or not)."""
    if not text.lstrip().startswith("{"):  # none can be anything but a JSON object
        return False
    # Each is recognised by a key, so a text that cannot spell any of them (written plainly or
    # with a `\u` escape) is no ticket, marker or placeholder, and is not parsed: a capped result
    # is often a large JSON document (a 20 KB one parses in about 50 µs).
    if (
        '"collapsed"' not in text
        and '"truncated"' not in text
        and '"cleared"' not in text
        and "\\u" not in text
    ):
        return False
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return is_ticket(value) or is_truncated(value) or is_placeholder(value)


def shape(
    messages: Sequence[Message],
    fold: Mapping[str, StandingRow] | None,
    collapse: CollapseMode | None,
    cap: CapOption | None,
    cleared: Mapping[int, str] | None = None,
    recall_tool: str | None = None,
) -> tuple[list[Message], tuple[ShapedResult, ...]]:
    """The shaped transcript and what was shaped, in transcript order
    (`docs/rules.md#what-is-shaped`).

    For each result message, the first rule that applies: already shaped, unchanged; collapse to
    the ticket when its standing collapses and the ticket is shorter; clear to its placeholder
    when `cleared` (core index → placeholder, `app.core.clear.cleared_results`) holds it; cap to
    the marker's compact JSON when its text is over its ceiling and the marker is shorter;
    otherwise unchanged. With recall on (`recall_tool`, the tool's name), a marker carries its
    result's `ref`, and a result of the recall tool is never capped: its pages are already
    bounded (docs/rules.md#the-recall-option).
    """
    collapsing = None if collapse is None or fold is None else COLLAPSING[collapse]
    cleared = {} if cleared is None else cleared
    # A text at or under every ceiling can be passed over without looking its tool's name up.
    smallest_cap = None if cap is None else min([cap.max_chars, *cap.max_chars_by_tool.values()])
    call_names: dict[str, str] | None = None  # read the first time a name is needed
    shaped = list(messages)
    report: list[ShapedResult] = []
    for index, message in enumerate(messages):
        call_id = message.tool_call_id
        # A result message (`is_result_message`), tested inline: this loop sees every message,
        # and most results are neither judged away, cleared nor over a ceiling.
        if message.role != "tool" or message.not_dispatched or not call_id:
            continue
        text = message.content
        row = None if collapsing is None or fold is None else fold.get(call_id)
        if (
            (row is None or collapsing is None or row.standing not in collapsing)
            and index not in cleared
            and (smallest_cap is None or len(text) <= smallest_cap)
        ):
            continue
        if call_names is None:
            call_names = first_call_names(messages)
        replacement, action = replacement_for(
            message, fold, collapse, cap, call_names, cleared.get(index), recall_tool
        )
        if replacement is None or action is None or is_shaped(text):
            continue
        # The written result is the replacement alone: images and documents inside it are gone too.
        shaped[index] = as_text(message, replacement)
        report.append(
            ShapedResult(
                index=index,
                tool_call_id=call_id,
                tool_name=name_of(message, call_names),
                action=action,
                chars_before=len(text),
                chars_after=len(replacement),
                content=replacement,
            )
        )
    return shaped, tuple(report)


def replacement_for(
    message: Message,
    fold: Mapping[str, StandingRow] | None,
    collapse: CollapseMode | None,
    cap: CapOption | None,
    call_names: dict[str, str],
    placeholder: str | None = None,
    recall_tool: str | None = None,
) -> tuple[str | None, ShapeAction | None]:
    """The text rules 2 to 4 would put in place of a result's text, if any: a ticket or a marker
    only when shorter; `placeholder` (chosen by `app.core.clear`, which weighed its length and the
    result's non-text parts) when the result is cleared. With recall on (`recall_tool`), the
    marker carries the result's `ref`, and no result of the recall tool is capped."""
    text = message.content
    if collapse is not None and fold is not None:
        row = collapsing_row(message, fold, collapse)
        if row is not None:
            ticket = ticket_for(row)
            if len(ticket) < len(text):
                return ticket, "collapsed"
    if placeholder is not None:
        return placeholder, "cleared"
    if cap is None:
        return None, None
    name = name_of(message, call_names)
    if recall_tool is not None and name == recall_tool:
        return None, None
    ceiling = cap.max_chars if name is None else cap.max_chars_by_tool.get(name, cap.max_chars)
    if len(text) <= ceiling:
        return None, None
    ref = None if recall_tool is None else message.tool_call_id
    written = capped_text(text, name, ceiling, ref)
    return (None, None) if written is None else (written, "capped")


def capped_text(text: str, name: str | None, cap: int, ref: str | None = None) -> str | None:
    """The compact JSON of the marker replacing `text` at `cap` (`{tool_name}` = `name`, or the
    words `the tool`; with recall on, `ref` the result's `tool_call_id`, written last), when it
    is shorter than the text; else None."""
    if len(text) <= cap:
        return None
    marker = orjson.dumps(
        marker_for(text, UNNAMED_TOOL if name is None else name, cap, ref)
    ).decode()
    return marker if len(marker) < len(text) else None


def as_text(message: Message, text: str) -> Message:
    """A result written as `text` alone: its images, documents and other parts go with the text
    it had; an image the format keeps beside the result (`Image.beside`) is still sent."""
    images = tuple(image for image in message.images if image.beside)
    return message._replace(content=text, images=images, extra_texts=(), extra_tokens=0)


def without_images(message: Message) -> tuple[Message, int]:
    """`message` with every image that may be replaced (not `Image.required`) counted as the text
    `IMAGE_REMOVED_TEXT` instead, and how many there were (docs/rules.md#images-and-thinking)."""
    kept = tuple(image for image in message.images if image.required)
    count = len(message.images) - len(kept)
    if not count:
        return message, 0
    return message._replace(
        content=message.content + IMAGE_REMOVED_TEXT * count, images=kept
    ), count


def images_entry(index: int, count: int) -> ShapedResult:
    """The report of `count` images of core message `index` replaced by a text."""
    return ShapedResult(
        index=index,
        tool_call_id=None,
        tool_name=None,
        action="image-cleared",
        chars_before=0,
        chars_after=count * len(IMAGE_REMOVED_TEXT),
        content="",
        images=count,
    )


def in_report_order(
    results: Sequence[ShapedResult], caller_of: Sequence[int]
) -> tuple[ShapedResult, ...]:
    """`results` in the order `shaped` reports them: by caller message (`caller_of`: core index →
    caller index, unless the result names its own), its results in core order, then its image
    replacements, then its reasoning's removal."""
    return tuple(
        sorted(
            results,
            key=lambda result: (
                caller_of[result.index] if result.caller is None else result.caller,
                ACTION_RANK.get(result.action, 0),
                result.index,
            ),
        )
    )
