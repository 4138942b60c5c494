"""`fit` within the model's limit: the held cut over several spans, then further spans, pins, the
keep window and caps, when the span of the plan leaves the window over its target.

A plan removes one contiguous span, and on a real run that span often ends early: the person's
latest message in the middle of a long tool loop, or a pinned turn, ends it, and every turn after
that is `not-reached` however many tokens it holds. `max_tokens` is the model's limit, so a window
over it is a request the provider refuses. So, once the span has left and the total is still over
`target_tokens`, `fit` goes on stage by stage, each only while the total is over its aim
(docs/rules.md#within-the-limit): the later candidates leave as further spans (aim: the target),
then the pinned turns, then the keep window's turns (aim: the limit), then the kept results are
capped and the kept images replaced by a text (aim: the limit). Turns leave whole and oldest first
within a stage, and some never leave (what the model is about to read, the request, the system
messages, open calls, and a turn whose removal would open the window on a non-user message).

The held cut of docs/rules.md#the-fit-strategy is read over the same order (the span's turns, then
the turns the first stage would remove), so an agent that re-sends its whole history keeps its
prefix while the window grows within the limit, whatever number of spans its last cut took.

Deliberately wrong: a stage weighs a turn's tokens as counted before it (the notice of the span
is not recounted as further spans come and go, since it names the span alone), and the caps and
image replacement count each replacement text on its own, as a separate text would be counted,
although a provider reads it joined to the message's other text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from app.core.counting import TranscriptTokens
from app.core.messages import Message
from app.core.names import name_of
from app.core.plan_types import HeldBy, Refusal, ShapedResult
from app.core.refusals import RefusalContext, SpanChoice, reason_for
from app.core.shaping import as_text, capped_text, images_entry, is_shaped, without_images
from app.core.span import system_envelope_length
from app.core.steps import Drop, Planning, Removal, Run
from app.core.strategies.fit import FitGoal, Stage
from app.core.tokens import message_tokens, scaled

# The refusals whose turns never leave in any stage (docs/rules.md#within-the-limit); a pin's
# reasons are the second stage's to release.
NEVER_LEAVING = frozenset(
    {
        "current-request",
        "system-envelope",
        "paused-tool",
        "pending-check-in",
        "unresolved-tool-call",
    }
)
PIN_REASONS = frozenset({"last-tool-result", "ledger-fact"})
# The smallest cap the fourth stage sets: below it a marker is mostly its own explanation.
SMALLEST_CAP = 256

DropSpan = Callable[[Planning, int, int], Drop]


@dataclass(slots=True)
class Progress:
    """What the stages have done so far: the window's total, every turn that left with the stage
    that took it, and the last stage that removed or shaped something."""

    total: int
    stages: dict[int, Stage] = field(default_factory=dict)
    stage: Stage = "span"


def last_assistant_turn(planning: Planning) -> int:
    """The turn of the transcript's last assistant message (every turn from it on never leaves);
    the turn count when there is none."""
    messages, segments = planning.transcript.messages, planning.transcript.segments
    for segment in reversed(segments):
        for position in range(segment.end - 1, segment.start - 1, -1):
            if messages[position].role == "assistant":
                return segment.turn
    return len(segments)


def stage_one_turns(choice: SpanChoice, candidate_count: int) -> range:
    """The candidates after the turn that ended the span (none when there is no span or nothing
    ended it): what the first stage evaluates."""
    if choice.first is None or choice.last is None:
        return range(0)
    return range(choice.last + 2, candidate_count)


def removal_of(planning: Planning, progress: Progress, held: bool = False,
               released: int = 0) -> Removal | None:  # fmt: skip
    """The removal of every turn that left, its runs split where the stage changes; None when
    nothing left or was shaped (a removal of no turn says that the caps alone shaped the window)."""
    if not progress.stages and progress.stage == "span":
        return None
    segments = planning.transcript.segments
    turns = tuple(sorted(progress.stages))
    runs: list[Run] = []
    ranges: list[tuple[int, int]] = []
    for turn in turns:
        stage = progress.stages[turn]
        last = runs[-1] if runs else None
        if last is not None and last.last == turn - 1 and last.stage == stage:
            runs[-1] = Run(last.first, turn, stage)
        else:
            runs.append(Run(turn, turn, stage))
        start, end = segments[turn].start, segments[turn].end
        if ranges and ranges[-1][1] == start:
            ranges[-1] = (ranges[-1][0], end)
        else:
            ranges.append((start, end))
    return Removal(turns, tuple(runs), tuple(ranges), held, progress.stage, released)


def held_cut(
    planning: Planning,
    goal: FitGoal,
    tokens: TranscriptTokens,
    context: RefusalContext,
    choice: SpanChoice,
    candidate_count: int,
    drop_span: DropSpan,
) -> tuple[Drop, Removal, int] | None:
    """The previous `fit` cut, held: the shortest prefix of the removal order (the span's turns,
    then the turns the first stage would remove) whose caller messages number exactly the count
    the last record removed, when its window is within `max_tokens` and the ladder does not
    refuse the span's part; else None. Returns the span's drop, the removal, and the last turn
    of the prefix.
    """
    first, last = choice.first, choice.last
    count = goal.held_count
    if count <= 0 or first is None or last is None:
        return None
    transcript = planning.transcript
    segments = transcript.segments
    limit = last_assistant_turn(planning)
    further = (
        turn
        for turn in stage_one_turns(choice, candidate_count)
        if turn < limit and reason_for(turn, context) is None
    )
    callers: set[int] = set()
    taken: list[int] = []
    for turn in (*range(first, last + 1), *further):
        segment = segments[turn]
        if transcript.distinct_callers:
            callers.update(transcript.callers[segment.start : segment.end])
        else:
            callers.update(transcript.caller_messages(segment.start, segment.end))
        taken.append(turn)
        if len(callers) >= count:
            break
    if len(callers) != count:
        return None
    span_last = min(taken[-1], last)
    without = goal.total_before - sum(tokens.turns[turn] for turn in taken)
    if without > goal.max_tokens:  # a notice only adds
        return None
    drop = drop_span(planning, first, span_last)
    if drop.refused or without + drop.notice_tokens > goal.max_tokens:
        return None
    drop = replace(drop, held=True)
    progress = Progress(without + drop.notice_tokens)
    for turn in taken:
        progress.stages[turn] = "span" if turn <= last else "further-spans"
        if turn > last:
            progress.stage = "further-spans"
    removal = removal_of(planning, progress, held=True)
    assert removal is not None
    return drop, removal, taken[-1]


@dataclass(frozen=True, slots=True)
class Beyond:
    """What the stages decided besides each turn's `held_by` (written in place)."""

    removal: Removal | None
    refusals: tuple[Refusal, ...]  # the first stage's, in turn order
    released: frozenset[int]
    keep_window_left: frozenset[int]
    shaped: tuple[ShapedResult, ...]
    # The transcript with the fourth stage's texts in place (None: it shaped nothing).
    messages: Sequence[Message] | None


class Front:
    """Whether removing a turn would open the window, right after the system envelope, on a
    message that is not a user's (providers refuse that opening) when no notice or summary
    opens it there."""

    def __init__(self, planning: Planning, progress: Progress, drop: Drop | None) -> None:
        self.planning = planning
        self.progress = progress
        self.envelope = system_envelope_length(planning.transcript)
        self.notice_opens = (
            drop is not None
            and not drop.refused
            and drop.front
            and drop.notice_content is not None
            and drop.first == self.envelope
        )

        # The oldest turn after the envelope that has not left: it opens the window. Turns only
        # ever leave, so it only moves forward.
        self.opening = self.envelope

    def refuses(self, turn: int) -> bool:
        if self.notice_opens:
            return False
        removed = self.progress.stages
        while self.opening in removed:
            self.opening += 1
        if turn != self.opening:
            return False
        segments, messages = self.planning.transcript.segments, self.planning.transcript.messages
        following = turn + 1
        while following < len(segments) and following in removed:
            following += 1
        if following >= len(segments):
            return False
        return messages[segments[following].start].role != "user"


def beyond_span(
    planning: Planning,
    goal: FitGoal,
    tokens: TranscriptTokens,
    context: RefusalContext,
    choice: SpanChoice,
    candidate_count: int,
    drop: Drop | None,
    held: list[HeldBy | None],
) -> Beyond:
    """Run the stages of docs/rules.md#within-the-limit after the span `drop` (None: no span
    left; a refused one stays), each while the total is over its aim; `held` is updated."""
    strategy = planning.options.strategy
    total = goal.total_before
    progress = Progress(total)
    if drop is not None and not drop.refused:
        progress.total = total - drop.tokens + drop.notice_tokens
        for turn in range(drop.first, drop.last + 1):
            progress.stages[turn] = "span"
    turns = tokens.turns
    limit = last_assistant_turn(planning)
    front = Front(planning, progress, drop)
    starts = planning.transcript.turn_starts

    # 1. Further spans, aiming at the target.
    refusals: list[Refusal] = []
    for turn in stage_one_turns(choice, candidate_count):
        if progress.total <= goal.target:
            held[turn] = "within-budget"
            continue
        reason = reason_for(turn, context)
        if reason is not None:
            held[turn] = reason
            refusals.append(Refusal(reason, turn, starts[turn]))
        elif turn < limit:
            progress.total -= turns[turn]
            progress.stages[turn] = progress.stage = "further-spans"
            held[turn] = None

    # 2. Pins yield, aiming at the limit.
    released: set[int] = set()
    if progress.total > goal.max_tokens:
        for turn in range(candidate_count):
            if progress.total <= goal.max_tokens:
                break
            if held[turn] in PIN_REASONS and turn < limit and not front.refuses(turn):
                progress.total -= turns[turn]
                progress.stages[turn] = progress.stage = "pins"
                held[turn] = None
                released.add(turn)

    # 3. The keep window yields, aiming at the limit.
    keep_left: set[int] = set()
    if progress.total > goal.max_tokens:
        for turn in range(candidate_count, len(turns)):
            if progress.total <= goal.max_tokens or turn >= limit:
                break
            if reason_for(turn, context) in NEVER_LEAVING or front.refuses(turn):
                continue
            progress.total -= turns[turn]
            progress.stages[turn] = progress.stage = "keep-window"
            held[turn] = None
            keep_left.add(turn)

    # 4. Caps, aiming at the limit.
    shaped: tuple[ShapedResult, ...] = ()
    messages: Sequence[Message] | None = None
    if progress.total > goal.max_tokens and strategy.overflow == "cap":
        shaped, messages = capped(planning, tokens, progress, goal.max_tokens)
        if shaped:
            progress.stage = "caps"
    return Beyond(
        removal_of(planning, progress, released=len(released)),
        tuple(refusals),
        frozenset(released),
        frozenset(keep_left),
        shaped,
        messages,
    )


def capped(
    planning: Planning, tokens: TranscriptTokens, progress: Progress, max_tokens: int
) -> tuple[tuple[ShapedResult, ...], Sequence[Message] | None]:
    """The fourth stage: the kept results' texts capped to the largest of `M/2`, `M/4`, … (at
    least `SMALLEST_CAP`) that brings the total within `max_tokens`, then, while it is still
    over, the kept messages' images replaced by a text, oldest first, never the current
    request's (docs/rules.md#within-the-limit). With recall on, a result of the recall tool is
    neither capped nor counted in `M`, and a marker carries its result's `ref`
    (docs/rules.md#the-recall-option)."""
    transcript = planning.transcript
    messages, segments = transcript.messages, transcript.segments
    removed = progress.stages
    count, scale = tokens.tokenizer.count, tokens.scale

    def counted(message: Message) -> int:
        return scaled(message_tokens(message, count), scale)

    recall_tool = planning.options.recall_tool
    call_names = transcript.survey.call_names
    kept_results: list[int] = []
    for segment in segments:
        if segment.turn in removed:
            continue
        for position in range(segment.start, segment.end):
            message = messages[position]
            if (
                message.role == "tool"
                and not message.not_dispatched
                and message.tool_call_id
                and not is_shaped(message.content)
                and (recall_tool is None or name_of(message, call_names) != recall_tool)
            ):
                kept_results.append(position)
    replaced: dict[int, Message] = {}
    report: dict[int, ShapedResult] = {}
    if kept_results:
        largest = max(len(messages[position].content) for position in kept_results)
        caps = []
        cap = largest // 2
        while cap >= SMALLEST_CAP:
            caps.append(cap)
            cap //= 2
        for cap in caps or [SMALLEST_CAP]:
            trial = capped_results(messages, kept_results, cap, call_names, recall_tool)
            saved = sum(
                tokens.scaled[position] - counted(message) for position, message in trial.items()
            )
            replaced = trial
            if progress.total - saved <= max_tokens:
                break
        progress.total -= sum(
            tokens.scaled[position] - counted(message) for position, message in replaced.items()
        )
        for position, message in replaced.items():
            before = messages[position]
            report[position] = ShapedResult(
                index=position,
                tool_call_id=before.tool_call_id,
                tool_name=name_of(before, call_names),
                action="capped",
                chars_before=len(before.content),
                chars_after=len(message.content),
                content=message.content,
            )
    images: list[ShapedResult] = []
    if progress.total > max_tokens:
        for segment in segments:
            if progress.total <= max_tokens:
                break
            if segment.turn in removed:
                continue
            for position in range(segment.start, segment.end):
                if progress.total <= max_tokens:
                    break
                message = replaced.get(position, messages[position])
                if position == planning.request or message.role not in ("user", "tool"):
                    continue
                after, cleared = without_images(message)
                if not cleared:
                    continue
                progress.total -= counted(message) - counted(after)
                replaced[position] = after
                images.append(images_entry(position, cleared))
    if not replaced:
        return (), None
    shaped = [*report.values(), *images]
    written = list(messages)
    for position, message in replaced.items():
        written[position] = message
    return tuple(shaped), written


def capped_results(
    messages: Sequence[Message],
    results: Sequence[int],
    cap: int,
    call_names: dict[str, str],
    recall_tool: str | None = None,
) -> dict[int, Message]:
    """Each result of `results` whose text is over `cap` and whose marker (shaping's rule 4 with
    that cap, carrying the result's `ref` with recall on) is shorter, with the marker as its text
    (its images go with the text)."""
    found: dict[int, Message] = {}
    for position in results:
        message = messages[position]
        ref = None if recall_tool is None else message.tool_call_id
        written = capped_text(message.content, name_of(message, call_names), cap, ref)
        if written is not None:
            found[position] = as_text(message, written)
    return found
