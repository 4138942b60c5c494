"""`python -m app --help` lists the settings and exits without serving; a graceful-shutdown time
shorter than the read timeout plus the processing deadline stops the start with one line, exit 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.settings import Settings, SettingsError, check_shutdown_budget

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, **variables: str) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("CWP_")}
    env.update(variables)
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_help_lists_every_setting_with_its_default_and_exits_0():
    done = run("--help", CWP_PORT="1")  # port 1 could not be bound: nothing is served
    assert done.returncode == 0
    for name in Settings.model_fields:
        line = f"CWP_{name.upper()} (default: "
        assert line in done.stdout, name
    assert "CWP_READ_TIMEOUT_SECONDS (default: 10.0)" in done.stdout
    assert "Longest time a request's head and body may take to arrive" in done.stdout
    assert "Context Window Planner on http" not in done.stdout  # the server did not start


def test_an_unknown_argument_is_a_usage_error():
    assert run("--serve-forever").returncode == 2


def test_a_grace_shorter_than_read_timeout_plus_deadline_is_refused_in_one_line():
    done = run(
        CWP_GRACEFUL_SHUTDOWN_SECONDS="15",
        CWP_READ_TIMEOUT_SECONDS="10",
        CWP_REQUEST_DEADLINE_SECONDS="10",
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "CWP_GRACEFUL_SHUTDOWN_SECONDS=15" in lines[0] and "20" in lines[0]
    assert done.stdout == ""


def test_the_defaults_and_an_equal_grace_pass_the_check():
    check_shutdown_budget(Settings())
    check_shutdown_budget(
        Settings(
            graceful_shutdown_seconds=7, read_timeout_seconds=3.5, request_deadline_seconds=3.5
        )
    )
    try:
        check_shutdown_budget(Settings(graceful_shutdown_seconds=6.9, request_deadline_seconds=1))
    except SettingsError as error:
        assert "11" in str(error)
    else:
        raise AssertionError("a short grace passed the check")
