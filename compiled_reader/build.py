"""Build the optional compiled reader into this environment, or say in one line why not.

The service reads every request in Python when the reader is absent (`/v1/info` says which reader is
in use), so a failed build must never stop `make run` or `make test`: any failure prints one line
with the reason and how to get the reader, and the command goes on. `--require` (the container
build, and CI through `CWP_REQUIRE_COMPILED_READER=1`) turns that line into a failure.

Crates come from Debian's crate directory when it exists: the offline source replacement in
`debian-crates.toml` is then cargo's configuration, through a `CARGO_HOME` of its own for this build
(maturin passes no `--config` to its `cargo metadata` step). Elsewhere cargo's defaults apply, tried
once.
PyO3 0.17 knows interpreters up to 3.11; a newer one gets the stable-ABI build (`abi3`).

`--cargo-test` runs the crate's own unit tests instead (`cargo test`, without the
`extension-module` feature, so the test binary links libpython and runs on its own); where there is
no cargo it prints one line and succeeds, unless `--require`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEBIAN_CRATES = Path("/usr/share/cargo/registry")
HOW_TO_GET = "apt-get install cargo librust-pyo3-dev librust-sha2-dev"
# A build that hangs (a registry that never answers) is a failed build, not a stuck command.
BUILD_TIMEOUT_SECONDS = 900


def maturin_args(python: tuple[int, int]) -> list[str]:
    """The arguments the build passes to maturin: the stable ABI past 3.11."""
    return ["--features", "abi3"] if python > (3, 11) else []


# pip's own summary lines, which say that the build failed but not why.
PIP_SUMMARIES = ("subprocess-exited-with-error", "metadata-generation-failed", "failed-wheel-build")


def failure_reason(log: str) -> str:
    """The first error line of a failed build's output that says why, not merely that it failed."""
    for line in log.splitlines():
        stripped = line.strip()
        if stripped.startswith(("error:", "error[")) and not stripped.endswith(PIP_SUMMARIES):
            return stripped
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def build(crates: Path = DEBIAN_CRATES, log_path: Path | None = None) -> str | None:
    """Install the reader with pip; None when it built, else the reason it did not."""
    if shutil.which("cargo") is None:
        return "cargo not found"
    env = dict(os.environ)
    args = maturin_args(sys.version_info[:2])
    if args:
        env["MATURIN_PEP517_ARGS"] = " ".join(args)
    command = [sys.executable, "-m", "pip", "install", "--quiet", str(HERE)]
    with debian_cargo_home(env, crates):
        try:
            result = subprocess.run(
                command,
                env=env,
                capture_output=True,
                text=True,
                timeout=BUILD_TIMEOUT_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"the build took more than {BUILD_TIMEOUT_SECONDS} s"
    if result.returncode == 0:
        return None
    log = result.stdout + result.stderr
    if log_path is not None:
        log_path.write_text(log)
    return failure_reason(log)


@contextlib.contextmanager
def debian_cargo_home(env: dict[str, str], crates: Path) -> Iterator[None]:
    """With Debian's crate directory present, `env` points cargo at a `CARGO_HOME` of this build's
    own holding `debian-crates.toml` (removed afterwards), so no crate is fetched."""
    with tempfile.TemporaryDirectory(prefix="cwp-cargo-home-") as cargo_home:
        if crates.is_dir():
            shutil.copyfile(HERE / "debian-crates.toml", Path(cargo_home) / "config.toml")
            env["CARGO_HOME"] = cargo_home
        yield


def cargo_test(crates: Path = DEBIAN_CRATES) -> str | None:
    """Run `cargo test` on the crate; None when it passed, else the reason it did not run or
    failed (its output goes to this process's)."""
    if shutil.which("cargo") is None:
        return "cargo not found"
    env = dict(os.environ, PYO3_PYTHON=sys.executable)
    libdir = sysconfig.get_config_var("LIBDIR")
    if libdir:  # a shared libpython, which the test binary loads
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            filter(None, (libdir, os.environ.get("LD_LIBRARY_PATH")))
        )
    command = ["cargo", "test", "--quiet", "--no-default-features"]
    with debian_cargo_home(env, crates):
        try:
            result = subprocess.run(
                command, cwd=HERE, env=env, timeout=BUILD_TIMEOUT_SECONDS, check=False
            )
        except subprocess.TimeoutExpired:
            return f"cargo test took more than {BUILD_TIMEOUT_SECONDS} s"
    return None if result.returncode == 0 else f"cargo test failed (exit {result.returncode})"


def main(argv: list[str]) -> int:
    require = "--require" in argv
    if "--cargo-test" in argv:
        skipped = None
        if shutil.which("cargo") is None:
            skipped = "cargo not found"
        elif importlib.util.find_spec("cwp_compiled_reader") is None:
            skipped = "the reader did not build here"
        if skipped is not None:
            print(f"compiled reader's Rust tests skipped ({skipped})", file=sys.stderr)
            return 1 if require else 0
        reason = cargo_test()
        if reason is not None:
            print(f"compiled reader's Rust tests: {reason}", file=sys.stderr)
            return 1
        return 0
    log_path = Path(sys.prefix) / "compiled-reader-build.log"
    log_path.unlink(missing_ok=True)
    reason = build(log_path=log_path)
    if reason is None:
        return 0
    where = f"; full log: {log_path}" if log_path.exists() else ""
    print(
        f"compiled reader not built ({reason}): plans are read in Python; "
        f"to get it: {HOW_TO_GET}{where}",
        file=sys.stderr,
    )
    return 1 if require else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
