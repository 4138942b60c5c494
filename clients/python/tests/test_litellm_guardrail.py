"""The LiteLLM proxy guardrail (`cwp_client.litellm`) as a user installs it: a venv of its own
(`.venv-hooks/litellm/`) holding `pip install 'clients/python[litellm]'` (LiteLLM and its proxy)
and pytest, in which `installed_hooks/litellm_cases.py` runs against this session's planner: the
hook called as the proxy calls it, then the real `litellm --config` proxy started from
`deploy/litellm/config.yaml` in front of a stand-in upstream.

The venv is made and reused as the hooks' are (`test_installed_hooks.py`): a first run installs
LiteLLM's proxy (about two minutes), a reused one only the changed client."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from test_installed_hooks import SCRIPTS, VENVS, client_wheel, install, is_current, pip
from tests.e2e.serving import Server

pytestmark = pytest.mark.slow
EXTRA = "litellm"
RUN_SECONDS = 600


@pytest.fixture(scope="module")
def litellm_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    python = VENVS / EXTRA / "bin" / "python"
    if not is_current(EXTRA):
        install(EXTRA, client_wheel(tmp_path_factory.mktemp("client-wheel")))
    probe = subprocess.run([str(python), "-c", "import pytest"], check=False, capture_output=True)
    if probe.returncode != 0:
        pip(python, "pytest>=9.2")
    return python


def test_the_guardrail_in_litellms_own_venv_and_proxy(
    server: Server, litellm_python: Path, tmp_path: Path
):
    done = subprocess.run(
        [str(litellm_python), "-m", "pytest", "-p", "no:cacheprovider", "--noconftest",
         "-rfE", "--basetemp", str(tmp_path / "cases"), "litellm_cases.py"],
        cwd=SCRIPTS,
        env={**os.environ, "CWP_PLANNER_URL": server.url, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    assert " passed" in last and "failed" not in last and "skipped" not in last, last
