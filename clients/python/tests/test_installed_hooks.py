"""Each hook imported from the client as a user installs it: a venv of its own per framework
(`.venv-hooks/<extra>/` at the repository's root) holding only `pip install
'clients/python[<extra>]'`, and a script in it (`installed_hooks/run_<hook>.py`) that imports the
hook and runs an agent through it against the live planner, shaped results included.

A venv is made once and reused while its stamp holds: the hash of the client's `pyproject.toml`
and of every source file of the package it installs (the hooks among them). A changed source
reinstalls the client alone (`--no-deps`); a changed `pyproject.toml` its dependencies too. The
client is built into one wheel first, which the venvs then install side by side: three builds
from the one source tree at once would share its `build/` directory and break each other. A
first run takes about a minute per framework; a reused venv a second or two.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from tests.e2e.serving import Server

CLIENT = Path(__file__).resolve().parents[1]
REPO_ROOT = CLIENT.parents[1]
VENVS = REPO_ROOT / ".venv-hooks"
SCRIPTS = Path(__file__).resolve().parent / "installed_hooks"
INSTALL_SECONDS = 600
RUN_SECONDS = 120

pytestmark = pytest.mark.slow


def stamp_of() -> str:
    """The hash of what an install copies: the project file and the package's sources."""
    digest = hashlib.sha256()
    sources = [CLIENT / "pyproject.toml", *sorted((CLIENT / "cwp_client").rglob("*.py"))]
    for path in sources:
        digest.update(str(path.relative_to(CLIENT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def pip(python: Path, *arguments: str) -> None:
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", *arguments],
        check=True,
        timeout=INSTALL_SECONDS,
        cwd=REPO_ROOT,
    )


def is_current(extra: str) -> bool:
    """Whether `.venv-hooks/<extra>/` holds the client as of now."""
    home = VENVS / extra
    stamp_file = home / ".installed"
    python = home / "bin" / "python"
    return python.exists() and stamp_file.exists() and stamp_file.read_text() == stamp_of()


def client_wheel(directory: Path) -> Path:
    """The client built once into a wheel in `directory`."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(directory),
         str(CLIENT)],
        check=True,
        timeout=INSTALL_SECONDS,
        cwd=REPO_ROOT,
    )  # fmt: skip
    (wheel,) = directory.glob("*.whl")
    return wheel


def install(extra: str, wheel: Path) -> None:
    """`.venv-hooks/<extra>/` made or refreshed with the client's `wheel` and its extra."""
    home = VENVS / extra
    python = home / "bin" / "python"
    fresh = not python.exists()
    if fresh:
        venv.EnvBuilder(with_pip=True, clear=True).create(home)
    pip(python, f"{wheel}[{extra}]")
    if not fresh:  # the same version number: pip kept the old copy of the package
        pip(python, "--no-deps", "--force-reinstall", str(wheel))
    (home / ".installed").write_text(stamp_of())


EXTRAS = ("openai-agents", "langchain", "pydantic-ai")


@pytest.fixture(scope="module")
def hook_pythons(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every hook's interpreter, its venv made or refreshed side by side with the others: a first
    run is mostly pip unpacking and waiting on files, so three at once take little more than the
    longest alone."""
    stale = [extra for extra in EXTRAS if not is_current(extra)]
    if stale:
        wheel = client_wheel(tmp_path_factory.mktemp("client-wheel"))
        with ThreadPoolExecutor(len(stale)) as pool:
            list(pool.map(install, stale, [wheel] * len(stale)))
    return {extra: VENVS / extra / "bin" / "python" for extra in EXTRAS}


@pytest.mark.parametrize(
    ("extra", "script", "others"),
    [
        ("openai-agents", "run_openai_agents.py", ["langchain", "pydantic_ai"]),
        ("langchain", "run_langchain.py", ["agents", "pydantic_ai"]),
        ("pydantic-ai", "run_pydantic_ai.py", ["agents", "langchain"]),
    ],
)
def test_the_installed_hook_runs_an_agent_against_the_planner(
    server: Server,
    hook_pythons: dict[str, Path],
    tmp_path: Path,
    extra: str,
    script: str,
    others: list[str],
):
    python = hook_pythons[extra]
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    # Run outside the checkout, so nothing of it is importable: only what the venv installed.
    isolated = [str(python), "-I", "-c"]
    check = f"import importlib.util as u; print([m for m in {others!r} if u.find_spec(m)])"
    done = subprocess.run([*isolated, check], capture_output=True, text=True, cwd=tmp_path)
    assert done.stdout.strip() == "[]", done.stderr  # only the client and this framework
    done = subprocess.run(
        [str(python), str(SCRIPTS / script), server.url],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=RUN_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    status, framework, module = done.stdout.split()
    assert (status, framework) == ("ok", extra)
    assert Path(module).is_relative_to(VENVS / extra), module  # the installed copy
    assert sys.prefix != str(VENVS / extra)
