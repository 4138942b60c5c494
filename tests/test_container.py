"""The container files, checked without a Docker engine: hadolint and the Compose JSON schema."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_dockerfile_passes_hadolint():
    result = run(str(BIN / "hadolint"), "--failure-threshold", "info", "Dockerfile")
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_file_matches_the_compose_spec():
    result = run(
        str(BIN / "check-jsonschema"),
        "--builtin-schema",
        "vendor.compose-spec",
        "docker-compose.yml",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_shape():
    text = (ROOT / "Dockerfile").read_text()
    assert text.count("\nFROM ") + text.startswith("FROM ") >= 2, "multi-stage"
    assert "-slim" in text
    assert "USER 10001" in text
    assert "HEALTHCHECK" in text and "/healthz" in text
    assert "EXPOSE 8080" in text
    final_stage = text.rsplit("\nFROM ", 1)[1]
    assert "gcc" not in final_stage and "build-essential" not in final_stage


def test_compose_runs_read_only_with_tmpfs_and_a_sidecar():
    text = (ROOT / "docker-compose.yml").read_text()
    assert "read_only: true" in text
    assert "- /tmp" in text
    assert "agent:" in text and "service_healthy" in text
