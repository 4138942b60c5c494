"""Which summarizer a framework hook gives a plan (`cwp_client.hooks._window.chosen_summarizer`):
by default the framework's own model, unless the session has a summarizer of its own; a function
given to the hook; or none. Every hook's `summarize` defaults to the framework's own model."""

from __future__ import annotations

import inspect
from types import SimpleNamespace
from typing import Any

import pytest

from cwp_client.hooks._window import chosen_summarizer


def framework_model(request: dict[str, Any]) -> str:
    return "by the framework's model"


def own(request: dict[str, Any]) -> str:
    return "by the caller's function"


def test_the_default_is_the_framework_model_unless_the_session_has_its_own() -> None:
    bare = SimpleNamespace(summarize=None)
    equipped = SimpleNamespace(summarize=own)
    assert chosen_summarizer(True, bare, lambda: framework_model) is framework_model
    assert chosen_summarizer(True, equipped, lambda: framework_model) is None


def test_a_function_is_used_and_none_or_false_turns_it_off() -> None:
    session = SimpleNamespace(summarize=None)
    assert chosen_summarizer(own, session, lambda: framework_model) is own
    assert chosen_summarizer(None, session, lambda: framework_model) is None
    assert chosen_summarizer(False, session, lambda: framework_model) is None


def test_the_framework_model_is_made_only_when_chosen() -> None:
    def refuse() -> Any:
        raise AssertionError("made although not chosen")

    assert chosen_summarizer(None, SimpleNamespace(summarize=None), refuse) is None
    assert chosen_summarizer(True, SimpleNamespace(summarize=own), refuse) is None


@pytest.mark.parametrize(
    ("module", "hook"),
    [
        ("cwp_client.hooks.langchain", "PlannedWindow"),
        ("cwp_client.hooks.openai_agents", "PlannedInput"),
        ("cwp_client.hooks.pydantic_ai", "PlannedWindow"),
    ],
)
def test_every_hook_defaults_to_the_framework_model(module: str, hook: str) -> None:
    loaded = pytest.importorskip(module)
    parameter = inspect.signature(getattr(loaded, hook)).parameters["summarize"]
    assert parameter.default is True
