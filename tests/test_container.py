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


def test_the_otel_profile_starts_a_traced_planner_and_a_collector_that_logs_spans():
    import yaml

    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    profiled = {name for name, service in services.items() if "otel" in service.get("profiles", [])}
    assert profiled == {"planner-traced", "agent-traced", "otel-collector"}
    assert not services["planner"].get("profiles")  # the plain sidecar starts without a profile
    planner = services["planner-traced"]
    assert planner["image"] == services["planner"]["image"]
    assert planner["environment"]["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://otel-collector:4318"
    assert planner["read_only"] is True and "otel-collector" in planner["depends_on"]
    assert services["agent-traced"]["environment"]["PLANNER_URL"] == "http://planner-traced:8080"
    collector = services["otel-collector"]
    (mount,) = collector["volumes"]
    source, target, _ = mount.split(":")
    assert collector["command"] == [f"--config={target}"]
    config = yaml.safe_load((ROOT / source).read_text())
    assert config["receivers"]["otlp"]["protocols"]["http"]["endpoint"].endswith(":4318")
    pipeline = config["service"]["pipelines"]["traces"]
    assert pipeline["receivers"] == ["otlp"] and pipeline["exporters"] == ["debug"]
    assert set(pipeline["processors"]) <= set(config["processors"])


def test_the_image_installs_the_otel_extra():
    import tomllib

    text = (ROOT / "Dockerfile").read_text()
    assert 'pip install --no-cache-dir ".[otel]"' in text
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    names = {requirement.split(">")[0] for requirement in extras["otel"]}
    assert names == {"opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-http"}
    assert names <= {requirement.split(">")[0] for requirement in extras["test"]}
