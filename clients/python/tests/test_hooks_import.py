"""The hooks' frameworks are extras: the client imports none of them, and a hook module imported
without its framework says which extra to install. Each check runs in a fresh interpreter, whose
`sys.modules` no earlier test has filled."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

FRAMEWORKS = ("agents", "langchain", "langchain_core", "pydantic_ai")


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_client_and_its_hooks_package_import_no_framework():
    done = run_python(
        f"""
        import sys
        import cwp_client, cwp_client.hooks
        print([name for name in {FRAMEWORKS!r} if name in sys.modules])
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("hook", "frameworks", "extra"),
    [
        ("openai_agents", ["agents"], "openai-agents"),
        ("langchain", ["langchain", "langchain_core"], "langchain"),
        ("pydantic_ai", ["pydantic_ai"], "pydantic-ai"),
    ],
)
def test_a_hook_without_its_framework_names_the_extra(hook, frameworks, extra):
    done = run_python(
        f"""
        import sys
        for name in {frameworks!r}:
            sys.modules[name] = None  # as if not installed
        try:
            import cwp_client.hooks.{hook}
        except ImportError as error:
            print(error)
        """
    )
    assert done.returncode == 0, done.stderr
    assert f"pip install 'context-window-planner-client[{extra}]'" in done.stdout
    assert f"cwp_client.hooks.{hook} needs" in done.stdout


def test_the_litellm_guardrail_without_litellm_names_the_extra():
    done = run_python(
        """
        import sys
        sys.modules["litellm"] = None  # as if not installed
        try:
            import cwp_client.litellm
        except ImportError as error:
            print(error)
        """
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'context-window-planner-client[litellm]'" in done.stdout
