"""A bad `CWP_` variable stops `python -m app` with one line naming it, and exit status 2.

The line names the environment variable (not pydantic's field name), the value it holds and what
it should hold; no traceback is printed and nothing is served.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Literal, get_origin

import pytest

from app.settings import Settings, SettingsError, load_settings

ROOT = Path(__file__).resolve().parent.parent


def start(**variables: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m app` with only these `CWP_` variables set."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("CWP_")}
    env.update(variables)
    return subprocess.run(
        [sys.executable, "-m", "app"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variables", "named", "expected"),
    [
        ({"CWP_PORT": "abc"}, ["CWP_PORT='abc'"], "an integer from 0 to 65535"),
        (
            {"CWP_PORT": "0", "CWP_LOG_LEVEL": "loud"},
            ["CWP_LOG_LEVEL='loud'"],
            "one of debug, info, warning, error",
        ),
        (
            {"CWP_PORT": "99999", "CWP_REQUEST_DEADLINE_SECONDS": "soon"},
            ["CWP_PORT='99999'", "CWP_REQUEST_DEADLINE_SECONDS='soon'"],
            "a number greater than 0",
        ),
        ({"CWP_READ_TIMEOUT_SECONDS": "0"}, ["CWP_READ_TIMEOUT_SECONDS='0'"], "greater than 0"),
        ({"CWP_READ_TIMEOUT_SECONDS": "abc"}, ["CWP_READ_TIMEOUT_SECONDS='abc'"], "a number"),
    ],
)
def test_a_bad_variable_is_one_line_naming_it_and_exit_status_2(variables, named, expected):
    result = start(**variables)
    assert result.returncode == 2, result
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "validation error" not in result.stderr
    for name in named:
        assert name in lines[0], lines[0]
    assert expected in lines[0], lines[0]
    assert result.stdout == ""  # the start-up banner is not printed: nothing is served


def bad_value(annotation: object) -> str:
    return "loud" if get_origin(annotation) is Literal else "not-a-number"


# Every setting but `host`, which takes any text.
TYPED_FIELDS = [
    name for name, field in Settings.model_fields.items() if field.annotation is not str
]


@pytest.mark.parametrize("name", TYPED_FIELDS)
def test_every_setting_is_named_by_its_variable(monkeypatch: pytest.MonkeyPatch, name: str):
    variable = f"CWP_{name.upper()}"
    value = bad_value(Settings.model_fields[name].annotation)
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as raised:
        load_settings()
    message = str(raised.value)
    assert "\n" not in message
    assert f"{variable}={value!r}: expected " in message
    assert f" {name} " not in f" {message} "  # the field's own name is not what is shown


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("CWP_PORT", "-1", "an integer from 0 to 65535"),
        ("CWP_MAX_HEADER_BYTES", "10", "an integer of at least 1024"),
        ("CWP_SHUTDOWN_DRAIN_SECONDS", "-0.5", "a number of at least 0"),
        ("CWP_KEEP_ALIVE_SECONDS", "0", "a number greater than 0"),
        ("CWP_READ_TIMEOUT_SECONDS", "0", "a number greater than 0"),
        ("CWP_READ_TIMEOUT_SECONDS", "-1", "a number greater than 0"),
        ("CWP_LIMIT_CONCURRENCY", "0", "an integer of at least 1"),
        ("CWP_LOG_FORMAT", "xml", "one of json, text"),
    ],
)
def test_a_value_out_of_range_says_what_is_expected(monkeypatch, variable, value, expected):
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert str(raised.value) == f"invalid setting: {variable}={value!r}: expected {expected}"


def test_good_variables_load(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CWP_PORT", "9090")
    monkeypatch.setenv("CWP_LOG_LEVEL", "debug")
    settings = load_settings()
    assert (settings.port, settings.log_level) == (9090, "debug")
