"""Framework frames (docs/rules.md#framework-frames): which user texts a framework wrote, and
how they stay out of the current request."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.core.current_request import current_request_index, said_by_a_person
from app.core.defaults import DEFAULT_FRAME_DETECTION
from app.core.frames import (
    FRAME_SENTENCES,
    FRAME_TAGS,
    NO_FRAME_DETECTION,
    FrameDetection,
    is_frame,
    valid_frame_tag,
)
from app.core.images import IMAGE_REMOVED_TEXT, Image
from app.core.messages import Message
from tests.core.window_fixtures import R, U, U_star, W, plan, req

REMINDER = (
    "<system-reminder>\nThe date changed. Do not mention this to the user.\n</system-reminder>"
)
COMMAND_ECHO = (
    "<command-name>/review</command-name>\n"
    "<command-message>review is running…</command-message>\n"
    "<command-args>src/app.py</command-args>"
)
TASK = "Find the hottest rack on the floor and report it."


@pytest.mark.parametrize(
    "text",
    [
        REMINDER,
        f"  \n{REMINDER}\n\t ",
        COMMAND_ECHO,
        "<system-reminder>a</system-reminder><system-reminder>b</system-reminder>",
        "<bash-input>ls</bash-input>\n\n<bash-stdout>a b</bash-stdout>"
        "\u2003<bash-stderr></bash-stderr>",
        "<system-reminder\u2003note=1>x</system-reminder>",
        '<task-notification id="7" kind=done>finished</task-notification>',
        "<system-reminder\tsource='hook'>x</system-reminder>",
        "<environment_context><cwd>/srv</cwd></environment_context>",
        "<local-command-stdout>a < b and </other> here</local-command-stdout>",
        "<user-prompt-submit-hook></user-prompt-submit-hook>",
        *(f"<{tag}>text</{tag}>" for tag in sorted(FRAME_TAGS)),
    ],
)
def test_listed_elements_separated_by_white_space_are_a_frame(text: str) -> None:
    assert is_frame(text)


@pytest.mark.parametrize(
    "text",
    [
        # Cline wraps the person's task in <task>: one unlisted element keeps the text a person's.
        "<task>Fix the login bug</task>\n<environment_details>cwd: /srv</environment_details>",
        "<user_message>deploy it</user_message>",
        f"{REMINDER}\nPlease also update the changelog.",
        f"Please update the changelog.\n{REMINDER}",
        f"{REMINDER} and one more thing",
        "<system-reminder>never closed",
        "<system-reminder>a</system-reminder><system-reminder>never closed",
        "<system-reminder>a</system-reminder> </system-reminder>",
        "<system-reminder/>",
        "<system-reminder",
        "<system-reminder attribute",
        "<system-reminderx>a</system-reminderx>",
        "<System-Reminder>a</System-Reminder>",
        "<system-reminder>a</SYSTEM-REMINDER>",
        "< system-reminder>a</system-reminder>",
        "<>a</>",
        "<1tag>a</1tag>",
        "<",
        "text <system-reminder>a</system-reminder>",
    ],
)
def test_anything_else_around_or_between_elements_is_not_a_frame(text: str) -> None:
    assert not is_frame(text)


def test_an_element_ends_at_the_first_closing_tag_of_its_name() -> None:
    # Read without backtracking, the inner closing tag ends the outer element: what follows it is
    # text outside any element, so the nest is not a frame.
    assert not is_frame("<system-reminder>a<system-reminder>b</system-reminder>c</system-reminder>")
    assert not is_frame("<system-reminder><system-reminder>b</system-reminder></system-reminder>")
    # A nested element of another name is only text inside the outer one.
    assert is_frame("<system-reminder><task>b</task></system-reminder>")
    # So is an unclosed opener of the same name, before the first closing tag.
    assert is_frame("<system-reminder><system-reminder>b</system-reminder>")


@pytest.mark.parametrize("sentence", FRAME_SENTENCES)
def test_a_framework_sentence_at_the_start_is_a_frame(sentence: str) -> None:
    assert is_frame(sentence)
    assert is_frame(f"\n  {sentence} and whatever follows,\nover several lines.")
    assert not is_frame(f"As the hook said: {sentence}")


def test_the_hook_feedback_sentence() -> None:
    assert is_frame("Stop hook feedback:\n- tests failed in tests/core")
    assert not is_frame("stop hook feedback: lower case is a person")


@pytest.mark.parametrize(
    "text",
    [
        "[Request interrupted by user]",
        "[Request interrupted by user for tool use]",
        "  [Request interrupted by user]\n",
    ],
)
def test_the_interruption_line_is_a_frame(text: str) -> None:
    assert is_frame(text)


@pytest.mark.parametrize(
    "text",
    [
        "[Request interrupted by user]\nNow do the other thing instead.",
        "[Request interrupted by user\r]",
        "[Request interrupted by user] then carry on",
        "[WIP] split the parser into two modules]",
        "[WIP] split the parser into two modules",
        "[request interrupted by user]",
    ],
)
def test_other_bracketed_lines_are_a_person(text: str) -> None:
    assert not is_frame(text)


@pytest.mark.parametrize("text", ["", " ", "\n\t\r", "\u2003\u00a0\u3000"])
def test_an_empty_or_white_space_text_is_not_a_frame(text: str) -> None:
    assert not is_frame(text)


def test_extra_names_make_a_frame_too() -> None:
    text = "<agent.status>idle</agent.status>\n<system-reminder>x</system-reminder>"
    assert not is_frame(text)
    assert is_frame(text, frozenset({"agent.status"}))
    # Extra names add to the list, they never replace it.
    assert is_frame(REMINDER, frozenset({"agent.status"}))
    assert not is_frame("<task>x</task>", frozenset({"agent.status"}))


def test_an_extra_name_no_element_can_have_makes_no_frame() -> None:
    assert not is_frame("<a b>x</a b>", frozenset({"a b"}))
    assert not is_frame("<x/>y</x/>", frozenset({"x/"}))


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("system-reminder", True),
        ("a", True),
        ("ns:tag.v2_x-y", True),
        ("", False),
        ("1tag", False),
        ("-tag", False),
        ("has space", False),
        ("tag>", False),
        ("étiquette", False),
    ],
)
def test_valid_frame_tag_is_the_element_name_pattern(name: str, valid: bool) -> None:
    assert valid_frame_tag(name) is valid


def test_every_listed_name_is_a_valid_name() -> None:
    assert all(valid_frame_tag(name) for name in FRAME_TAGS)


def test_detection_is_on_by_default_and_off_detects_nothing() -> None:
    assert (DEFAULT_FRAME_DETECTION.enabled, DEFAULT_FRAME_DETECTION.extra_tags) == (
        True,
        frozenset(),
    )
    assert DEFAULT_FRAME_DETECTION.detects(REMINDER)
    assert not NO_FRAME_DETECTION.detects(REMINDER)
    assert FrameDetection(True, frozenset({"note"})).detects("<note>x</note>")


# The current request.

TASK_THEN_REMINDERS = W(
    U(TASK),
    R("c1"),
    U(REMINDER),
    R("c2"),
    U(COMMAND_ECHO),
    R("c3"),
    U("[Request interrupted by user]"),
)


def test_reminders_after_the_task_leave_the_task_the_current_request() -> None:
    assert current_request_index(TASK_THEN_REMINDERS, None, frames=DEFAULT_FRAME_DETECTION) == 0


def test_detection_off_makes_the_last_user_text_the_request() -> None:
    last = len(TASK_THEN_REMINDERS) - 1
    assert current_request_index(TASK_THEN_REMINDERS, None, frames=NO_FRAME_DETECTION) == last


def test_a_later_person_message_is_still_the_request() -> None:
    messages = [*TASK_THEN_REMINDERS, U("Now check the second floor.")]
    request = current_request_index(messages, None, frames=DEFAULT_FRAME_DETECTION)
    assert request == len(messages) - 1


def test_request_text_equal_to_a_frame_makes_it_the_request() -> None:
    assert current_request_index(TASK_THEN_REMINDERS, REMINDER, frames=DEFAULT_FRAME_DETECTION) == 3
    # Only an exact match: the stripped text is not the content.
    stripped = REMINDER.strip() + "\n"
    assert current_request_index(TASK_THEN_REMINDERS, stripped, frames=DEFAULT_FRAME_DETECTION) == 0


def test_request_text_matching_nothing_falls_back_to_the_last_person_message() -> None:
    assert current_request_index(TASK_THEN_REMINDERS, "other", frames=DEFAULT_FRAME_DETECTION) == 0


def test_only_frames_mean_no_request() -> None:
    messages = W(U(REMINDER), R("c1"), U("Stop hook feedback: lint failed"))
    assert current_request_index(messages, None, frames=DEFAULT_FRAME_DETECTION) is None
    assert current_request_index(messages, None, frames=NO_FRAME_DETECTION) == 3


def test_an_injected_frame_is_never_the_request_even_named() -> None:
    messages = [U(TASK), U_star(REMINDER)]
    assert current_request_index(messages, REMINDER, frames=DEFAULT_FRAME_DETECTION) == 0


def test_a_user_message_with_no_text_is_no_request() -> None:
    """Only images or files (a screenshot after each action): nobody asked anything."""
    screenshot = Message("user", "", images=(Image("anthropic"),))
    messages = [U(TASK), *R("c1"), screenshot]
    assert current_request_index(messages, None, frames=DEFAULT_FRAME_DETECTION) == 0
    assert current_request_index(messages, "", frames=DEFAULT_FRAME_DETECTION) == 0
    assert not said_by_a_person(screenshot, frames=NO_FRAME_DETECTION)


def test_the_text_that_replaces_an_image_is_one_of_the_services_frames() -> None:
    messages = [U(TASK), *R("c1"), U(IMAGE_REMOVED_TEXT)]
    assert current_request_index(messages, None, frames=NO_FRAME_DETECTION) == 0
    assert current_request_index(messages, IMAGE_REMOVED_TEXT, frames=NO_FRAME_DETECTION) == 0
    assert not said_by_a_person(U(IMAGE_REMOVED_TEXT + " x"), frames=NO_FRAME_DETECTION)


def test_said_by_a_person_excludes_frames_only_when_detection_is_on() -> None:
    assert not said_by_a_person(U(REMINDER), frames=DEFAULT_FRAME_DETECTION)
    assert said_by_a_person(U(REMINDER), frames=NO_FRAME_DETECTION)
    assert said_by_a_person(U(TASK), frames=DEFAULT_FRAME_DETECTION)


def test_the_plan_keeps_the_task_under_reminders() -> None:
    messages = W(U(TASK), *(item for n in range(8) for item in (R(f"c{n}"), U(REMINDER))))
    result = plan(messages, keep=2)
    assert req(result) == (0, 0)
    assert 0 not in result.evicted
    assert result.turns[0]["held_by"] == "current-request"


# is_frame against a reference written differently: a regular expression whose atomic group ends
# each element at its first closing tag (fine on these short texts; the scanner is the linear one).

EXTRA = "agent.status"
PIECES = (
    "<system-reminder>",
    "</system-reminder>",
    "<command-name>",
    "</command-name>",
    f"<{EXTRA}>",
    f"</{EXTRA}>",
    "<task>",
    "</task>",
    "<system-reminder a='1'>",
    "<system-reminder ",
    "<system-reminder/>",
    "<",
    "</",
    ">",
    " ",
    "\n",
    "\u2003",
    "x",
    "[Request interrupted by user",
    "]",
    "Stop hook feedback:",
)


def reference_is_frame(text: str, extra_tags: frozenset[str]) -> bool:
    stripped = text.strip()
    if not stripped:
        return False
    if stripped.startswith(FRAME_SENTENCES):
        return True
    one_line = "\n" not in stripped and "\r" not in stripped
    if one_line and stripped.startswith("[Request interrupted by user") and stripped.endswith("]"):
        return True
    names = "|".join(re.escape(name) for name in FRAME_TAGS | extra_tags)
    element = rf"<(?P<name>{names})(?=[\s>])(?:\s[^>]*)?>(?>.*?</(?P=name)>)\s*"
    return re.fullmatch(rf"(?:{element})+", stripped, re.DOTALL) is not None


def well_formed() -> st.SearchStrategy[str]:
    tags = st.sampled_from([*sorted(FRAME_TAGS), EXTRA, "task"])
    body = st.lists(st.sampled_from(PIECES), max_size=4).map("".join)
    gap = st.sampled_from(["", " ", "\n", "\u2003\t"])
    element = st.builds(lambda tag, inner, space: f"<{tag}>{inner}</{tag}>{space}", tags, body, gap)
    return st.lists(element, min_size=1, max_size=5).map("".join)


tag_soup = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=12).map("".join),
    well_formed(),
    st.text(max_size=40),
)


@given(tag_soup, st.sampled_from([frozenset(), frozenset({EXTRA})]))
def test_is_frame_agrees_with_the_reference(text: str, extra_tags: frozenset[str]) -> None:
    assert is_frame(text, extra_tags) == reference_is_frame(text, extra_tags)


@given(st.text(), st.frozensets(st.text(max_size=8), max_size=3))
def test_is_frame_never_raises(text: str, extra_tags: frozenset[str]) -> None:
    assert isinstance(is_frame(text, extra_tags), bool)
