"""The optional compiled reader's build: a failure is one line, not a stop."""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD_SCRIPT = ROOT / "compiled_reader" / "build.py"

spec = importlib.util.spec_from_file_location("compiled_reader_build", BUILD_SCRIPT)
assert spec is not None and spec.loader is not None
build_module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_module)


def failing_cargo(folder: Path) -> Path:
    cargo = folder / "cargo"
    cargo.write_text(
        "#!/bin/sh\necho 'error: this toolchain cannot build anything' >&2\nexit 101\n"
    )
    cargo.chmod(cargo.stat().st_mode | stat.S_IXUSR)
    return folder


def run_build(path: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path}
    return subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_without_cargo_the_build_says_so_in_one_line_and_goes_on(tmp_path):
    result = run_build(str(tmp_path))
    assert result.returncode == 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert "compiled reader not built (cargo not found)" in lines[0]
    assert "apt-get install cargo librust-pyo3-dev" in lines[0]


def test_without_cargo_a_required_build_fails(tmp_path):
    assert run_build(str(tmp_path), "--require").returncode == 1


@pytest.mark.slow
def test_a_cargo_that_fails_is_one_line_with_its_reason(tmp_path):
    path = f"{failing_cargo(tmp_path)}{os.pathsep}{os.environ['PATH']}"
    result = run_build(path)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("compiled reader not built (")
    assert "plans are read in Python" in lines[0]


def test_the_reason_is_the_first_error_that_says_why():
    log = "\n".join(
        [
            "  error: subprocess-exited-with-error",
            "      warning: spurious network error (3 tries remaining)",
            "      error: failed to get `pyo3` as a dependency of package `cwp-compiled-reader`",
            "error: metadata-generation-failed",
        ]
    )
    assert build_module.failure_reason(log) == (
        "error: failed to get `pyo3` as a dependency of package `cwp-compiled-reader`"
    )
    assert build_module.failure_reason("") == "no output"
    assert build_module.failure_reason("just this\n") == "just this"


def test_interpreters_newer_than_3_11_get_the_stable_abi():
    assert build_module.maturin_args((3, 11)) == []
    assert build_module.maturin_args((3, 12)) == ["--features", "abi3"]
    assert build_module.maturin_args((3, 13)) == ["--features", "abi3"]
