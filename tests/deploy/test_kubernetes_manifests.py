"""The Kubernetes manifests under deploy/kubernetes/, checked offline, without a cluster.

Every document is validated against the API schemas that kubernetes-validate ships in its wheel,
in strict mode, so an unknown or misspelt field fails as a wrong type does. Two releases: 1.29,
the first where native sidecars (an init container with `restartPolicy: Always`) are on by
default, so the manifests use nothing newer than the oldest cluster they claim; and 1.37, the
newest the pinned package knows, so they use nothing since removed. Known-bad documents show the
validation refuses what it should.

The rest are the promises of the two shapes that a schema cannot see: the sidecar is a native
sidecar the agent reaches on loopback; both probe `/readyz` and `/healthz` on the port the image
exposes; every container is locked down and sized; the autoscaler, the disruption budget, the
Service and the spread constraint select the pods the Deployment makes; the `CWP_` variables are
settings the service reads, with values it accepts; and the image facts match the Dockerfile.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml
from kubernetes_validate.utils import all_versions

from app.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "kubernetes"
SHAPES = ("sidecar", "shared")
KUBERNETES_VERSIONS = ("1.29", "1.37")
PLANNER = "planner"

Document = dict[str, Any]


def manifest_files() -> list[Path]:
    return sorted(path for path in DEPLOY.rglob("*") if path.suffix in (".yaml", ".yml"))


def documents(path: Path) -> list[Document]:
    return [document for document in yaml.safe_load_all(path.read_text()) if document]


def shape_documents(shape: str) -> list[Document]:
    return [document for path in sorted((DEPLOY / shape).iterdir()) for document in documents(path)]


def the_one(shape: str, kind: str) -> Document:
    found = [document for document in shape_documents(shape) if document["kind"] == kind]
    assert len(found) == 1, f"{shape}: expected one {kind}, found {len(found)}"
    return found[0]


def pod_spec(shape: str) -> Document:
    spec: Document = the_one(shape, "Deployment")["spec"]["template"]["spec"]
    return spec


def pod_labels(shape: str) -> dict[str, str]:
    labels: dict[str, str] = the_one(shape, "Deployment")["spec"]["template"]["metadata"]["labels"]
    return labels


def all_containers(spec: Document) -> Iterator[Document]:
    yield from spec.get("initContainers", [])
    yield from spec["containers"]


def planner(shape: str) -> Document:
    spec = pod_spec(shape)
    found = [container for container in all_containers(spec) if container["name"] == PLANNER]
    assert len(found) == 1, f"{shape}: expected one container named {PLANNER}"
    return found[0]


def env_of(container: Document) -> dict[str, str]:
    return {variable["name"]: variable["value"] for variable in container.get("env", [])}


def port_number(container: Document, port: int | str) -> int:
    """A probe's or a Service's port, a number or the name of one of the container's ports."""
    if isinstance(port, int):
        return port
    named = [entry["containerPort"] for entry in container["ports"] if entry.get("name") == port]
    assert named, f"no container port named {port!r}"
    return int(named[0])


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return bool(selector) and all(labels.get(key) == value for key, value in selector.items())


_QUANTITY = re.compile(r"^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi)?$")
_SCALE = {None: 1.0, "m": 1e-3, "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30}


def quantity(value: str | int) -> float:
    """A resource quantity in the units this repository's manifests use (cores or bytes)."""
    match = _QUANTITY.match(str(value))
    if match is None:
        raise ValueError(f"unrecognised quantity {value!r}")
    return float(match[1]) * _SCALE[match[2]]


class Dockerfile:
    """What the final stage of the repository's Dockerfile says about the running image."""

    def __init__(self, text: str) -> None:
        final_stage = text.rsplit("\nFROM ", 1)[1]
        expose = re.search(r"^EXPOSE\s+(\d+)", final_stage, re.MULTILINE)
        user = re.search(r"^USER\s+(\d+)(?::(\d+))?", final_stage, re.MULTILINE)
        port = re.search(r"\bCWP_PORT=(\d+)", final_stage)
        assert expose and user and port, "the final stage has EXPOSE, a numeric USER and CWP_PORT"
        self.exposed_port = int(expose[1])
        self.user = int(user[1])
        self.group = int(user[2]) if user[2] else None
        self.port_setting = int(port[1])


DOCKERFILE = Dockerfile((ROOT / "Dockerfile").read_text())


# ---- the API schemas -----------------------------------------------------------------------------


def test_every_shape_has_manifests():
    files = manifest_files()
    for shape in SHAPES:
        assert any(path.parent == DEPLOY / shape for path in files), shape
    assert sum(len(documents(path)) for path in files) >= 6


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_the_pinned_release_has_schemas_shipped(version):
    # validate() quietly falls back to the newest release not newer than the one asked for.
    assert f"{version}.0" in all_versions()


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("path", manifest_files(), ids=lambda path: str(path.relative_to(DEPLOY)))
def test_manifest_matches_the_api_schema(path, version):
    for document in documents(path):
        problem = None
        try:
            validated = kubernetes_validate.validate(document, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            # The error's own text carries the whole schema; where and what is what matters.
            where = ".".join(str(key) for key in error.absolute_path) or "(top)"
            problem = f"{document['kind']} at {where}: {error.message}"
        if problem is not None:
            pytest.fail(problem, pytrace=False)
        assert validated == version, f"validated against {validated}, not {version}"


def _set(path: list[str | int], value: Any) -> Callable[[Document], None]:
    def mutate(document: Document) -> None:
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _drop(path: list[str | int]) -> Callable[[Document], None]:
    def mutate(document: Document) -> None:
        target = document
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return mutate


SIDECAR_PLANNER = ["spec", "template", "spec", "initContainers", 0]
BROKEN = {
    "misspelt container field": (
        "sidecar/deployment.yaml",
        _set([*SIDECAR_PLANNER, "readinessprobe"], {"httpGet": {"path": "/readyz", "port": 8080}}),
        SIDECAR_PLANNER,
    ),
    "unknown field in the pod spec": (
        "shared/deployment.yaml",
        _set(["spec", "template", "spec", "sidecars"], []),
        ["spec", "template", "spec"],
    ),
    "port as text": (
        "sidecar/deployment.yaml",
        _set([*SIDECAR_PLANNER, "ports", 0, "containerPort"], "8080"),
        [*SIDECAR_PLANNER, "ports", 0, "containerPort"],
    ),
    "replica count as text": (
        "shared/hpa.yaml",
        _set(["spec", "minReplicas"], "2"),
        ["spec", "minReplicas"],
    ),
    "required field missing": (
        "shared/deployment.yaml",
        _drop(["spec", "selector"]),
        ["spec"],
    ),
    "a list where an object belongs": (
        "shared/pdb.yaml",
        _set(["spec", "selector"], [{"app.kubernetes.io/name": "context-window-planner"}]),
        ["spec", "selector"],
    ),
}


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_document_fails_validation(case, version):
    file, mutate, error_path = BROKEN[case]
    (document,) = documents(DEPLOY / file)
    kubernetes_validate.validate(document, version, strict=True)  # the original passes
    broken = copy.deepcopy(document)
    mutate(broken)
    with pytest.raises(kubernetes_validate.ValidationError) as raised:
        kubernetes_validate.validate(broken, version, strict=True)
    assert list(raised.value.absolute_path) == error_path, raised.value.message


def test_a_kind_without_a_schema_fails_rather_than_passes():
    document = {"apiVersion": "example.com/v1", "kind": "Planner", "metadata": {"name": "x"}}
    with pytest.raises(kubernetes_validate.SchemaNotFoundError):
        kubernetes_validate.validate(document, KUBERNETES_VERSIONS[-1], strict=True)


# ---- the sidecar shape ---------------------------------------------------------------------------


def test_the_planner_is_a_native_sidecar():
    spec = pod_spec("sidecar")
    sidecar = planner("sidecar")
    assert sidecar in spec["initContainers"]
    assert sidecar["restartPolicy"] == "Always"
    assert spec["containers"], "an agent container beside it"
    assert all(container["name"] != PLANNER for container in spec["containers"])


def test_the_agent_reaches_the_planner_on_loopback():
    (agent,) = pod_spec("sidecar")["containers"]
    url = urlsplit(env_of(agent)["PLANNER_URL"])
    assert url.hostname in ("127.0.0.1", "localhost")
    assert url.port == planner("sidecar")["ports"][0]["containerPort"]
    assert "PLANNER_URL" in "\n".join(agent["command"])


def test_no_other_pod_reaches_the_sidecar():
    policy = the_one("sidecar", "NetworkPolicy")
    assert selects(policy["spec"]["podSelector"]["matchLabels"], pod_labels("sidecar"))
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    assert not policy["spec"].get("ingress")
    assert not any(document["kind"] == "Service" for document in shape_documents("sidecar"))


# ---- both shapes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_probes_hit_health_and_readiness_on_the_container_port(shape):
    container = planner(shape)
    (port,) = container["ports"]
    paths = {"startupProbe": "/healthz", "livenessProbe": "/healthz", "readinessProbe": "/readyz"}
    for probe, path in paths.items():
        action = container[probe]["httpGet"]
        assert action["path"] == path, probe
        assert port_number(container, action["port"]) == port["containerPort"], probe
        assert action.get("scheme", "HTTP") == "HTTP", probe


@pytest.mark.parametrize("shape", SHAPES)
def test_the_image_facts_match_the_dockerfile(shape):
    container = planner(shape)
    env = env_of(container)
    assert container["ports"][0]["containerPort"] == DOCKERFILE.exposed_port
    assert int(env["CWP_PORT"]) == DOCKERFILE.exposed_port == DOCKERFILE.port_setting
    assert container["securityContext"]["runAsUser"] == DOCKERFILE.user
    if DOCKERFILE.group is not None:
        assert container["securityContext"]["runAsGroup"] == DOCKERFILE.group
    # The kubelet probes the pod's IP: a loopback bind would fail every probe.
    assert env["CWP_HOST"] == "0.0.0.0"


def test_both_shapes_run_the_same_image():
    assert planner("sidecar")["image"] == planner("shared")["image"]


@pytest.mark.parametrize("shape", SHAPES)
def test_every_container_is_locked_down(shape):
    spec = pod_spec(shape)
    pod_context = spec.get("securityContext", {})
    assert pod_context["runAsNonRoot"] is True
    assert spec["automountServiceAccountToken"] is False
    for container in all_containers(spec):
        context = container["securityContext"]
        name = container["name"]
        assert context["readOnlyRootFilesystem"] is True, name
        assert context.get("runAsNonRoot", pod_context.get("runAsNonRoot")) is True, name
        user = context.get("runAsUser", pod_context.get("runAsUser"))
        assert isinstance(user, int) and user > 0, name
        assert context["allowPrivilegeEscalation"] is False, name
        assert context["capabilities"]["drop"] == ["ALL"], name
        assert not context["capabilities"].get("add"), name
        seccomp = context.get("seccompProfile", pod_context.get("seccompProfile"))
        assert seccomp == {"type": "RuntimeDefault"}, name


@pytest.mark.parametrize("shape", SHAPES)
def test_every_container_has_requests_and_limits(shape):
    for container in all_containers(pod_spec(shape)):
        resources = container["resources"]
        for resource in ("cpu", "memory"):
            request = quantity(resources["requests"][resource])
            limit = quantity(resources["limits"][resource])
            assert 0 < request <= limit, (container["name"], resource)


def test_quantities_are_read_in_their_units():
    assert quantity("500m") == 0.5
    assert quantity("1") == 1.0
    assert quantity("192Mi") == 192 * 2**20
    with pytest.raises(ValueError):
        quantity("1.5Ti")


@pytest.mark.parametrize("shape", SHAPES)
def test_the_settings_are_ones_the_service_reads_and_accepts(shape, monkeypatch):
    env = env_of(planner(shape))
    known = {f"CWP_{name.upper()}" for name in Settings.model_fields}
    settings_env = {name: value for name, value in env.items() if name.startswith("CWP_")}
    assert set(settings_env) <= known, set(settings_env) - known
    for name in known:
        monkeypatch.delenv(name, raising=False)
    for name, value in settings_env.items():
        monkeypatch.setenv(name, value)
    settings = load_settings()
    assert settings.port == DOCKERFILE.exposed_port


# docs/decisions/0032-slow-clients.md: the slowest link a body at the limit must fit on, and what
# a connection that sent 64 KiB of its body and stalled was measured to cost the process.
SLOWEST_LINK_BYTES_PER_SECOND = 3.2 * 2**20
STALLED_CONNECTION_BYTES = 154 * 2**10
# What the limit must hold beside them: a loaded replica with both vocabularies and the two
# largest bodies the default settings admit (the manifest's own sizing comment).
LOADED_REPLICA_BYTES = 350 * 2**20


def test_the_shared_deployment_bounds_slow_clients():
    env = env_of(planner("shared"))
    read_timeout = float(env["CWP_READ_TIMEOUT_SECONDS"])
    ceiling = int(env["CWP_LIMIT_CONCURRENCY"])
    max_body = int(env["CWP_MAX_BODY_BYTES"])
    # A legitimate body at the limit still fits in the deadline on the slowest link assumed.
    assert max_body / read_timeout <= SLOWEST_LINK_BYTES_PER_SECOND
    # A ceiling full of stalled connections fits in the memory limit beside a loaded replica.
    limit = quantity(planner("shared")["resources"]["limits"]["memory"])
    assert LOADED_REPLICA_BYTES + ceiling * STALLED_CONNECTION_BYTES <= limit


# docs/reliability.md#the-memory-a-replica-can-need: a replica at steady load with both
# vocabularies, and what planning adds to a body beyond its own bytes (a plan peaks at about 5x
# its body).
STEADY_REPLICA_BYTES = 225 * 2**20
PLANNING_OVERHEAD_PER_BODY_BYTE = 4


@pytest.mark.parametrize("shape", SHAPES)
def test_the_memory_limit_holds_what_a_replica_can_need(shape, monkeypatch):
    env = env_of(planner(shape))
    for name in Settings.model_fields:
        monkeypatch.delenv(f"CWP_{name.upper()}", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = load_settings()
    need = (
        STEADY_REPLICA_BYTES
        + max(settings.body_budget_bytes, settings.max_body_bytes)
        + settings.large_body_slots * PLANNING_OVERHEAD_PER_BODY_BYTE * settings.max_body_bytes
    )
    resources = planner(shape)["resources"]
    assert need <= quantity(resources["limits"]["memory"])
    # The derivation is written beside the limit, with the budget it counts.
    assert "CWP_BODY_BUDGET_BYTES" in env
    assert "The memory limit, derived" in (DEPLOY / shape / "deployment.yaml").read_text()


@pytest.mark.parametrize("shape", SHAPES)
def test_the_grace_period_outlasts_the_drain_and_the_graceful_shutdown(shape):
    env = env_of(planner(shape))
    drain = float(env["CWP_SHUTDOWN_DRAIN_SECONDS"])
    graceful = float(env["CWP_GRACEFUL_SHUTDOWN_SECONDS"])
    assert pod_spec(shape)["terminationGracePeriodSeconds"] > drain + graceful


@pytest.mark.parametrize("shape", SHAPES)
def test_the_deployment_selects_its_own_pods(shape):
    deployment = the_one(shape, "Deployment")
    assert selects(deployment["spec"]["selector"]["matchLabels"], pod_labels(shape))


# ---- the shared shape ----------------------------------------------------------------------------


def test_the_autoscaler_targets_the_deployment_on_cpu():
    deployment = the_one("shared", "Deployment")
    autoscaler = the_one("shared", "HorizontalPodAutoscaler")
    assert autoscaler["apiVersion"] == "autoscaling/v2"
    assert autoscaler["spec"]["scaleTargetRef"] == {
        "apiVersion": deployment["apiVersion"],
        "kind": "Deployment",
        "name": deployment["metadata"]["name"],
    }
    (metric,) = autoscaler["spec"]["metrics"]
    assert metric["type"] == "Resource"
    assert metric["resource"]["name"] == "cpu"
    assert metric["resource"]["target"]["type"] == "Utilization"
    assert 2 <= autoscaler["spec"]["minReplicas"] <= autoscaler["spec"]["maxReplicas"]
    # Utilization is a share of the request, and `kubectl apply` must leave the count to it.
    assert quantity(planner("shared")["resources"]["requests"]["cpu"]) > 0
    assert "replicas" not in deployment["spec"]


def test_the_disruption_budget_covers_the_pods():
    budget = the_one("shared", "PodDisruptionBudget")
    assert budget["apiVersion"] == "policy/v1"
    selector = budget["spec"]["selector"]["matchLabels"]
    assert selects(selector, pod_labels("shared"))
    assert selector == the_one("shared", "Deployment")["spec"]["selector"]["matchLabels"]
    minimum = the_one("shared", "HorizontalPodAutoscaler")["spec"]["minReplicas"]
    assert 0 < budget["spec"]["minAvailable"] < minimum, "a drain can still evict one replica"


def test_the_service_routes_to_the_planner_port():
    service = the_one("shared", "Service")
    assert selects(service["spec"]["selector"], pod_labels("shared"))
    container = planner("shared")
    (port,) = service["spec"]["ports"]
    assert port_number(container, port["targetPort"]) == container["ports"][0]["containerPort"]


def test_replicas_spread_over_nodes():
    (constraint,) = pod_spec("shared")["topologySpreadConstraints"]
    assert constraint["topologyKey"] == "kubernetes.io/hostname"
    assert selects(constraint["labelSelector"]["matchLabels"], pod_labels("shared"))


@pytest.mark.parametrize("shape", SHAPES)
def test_the_graceful_shutdown_covers_the_read_timeout_and_the_deadline(shape):
    # What `python -m app` checks at start-up (docs/reliability.md#shutdown): a manifest that
    # broke it would leave every pod failing to start.
    env = env_of(planner(shape))
    defaults = Settings()
    read_timeout = float(env.get("CWP_READ_TIMEOUT_SECONDS", defaults.read_timeout_seconds))
    deadline = float(env.get("CWP_REQUEST_DEADLINE_SECONDS", defaults.request_deadline_seconds))
    graceful = float(env["CWP_GRACEFUL_SHUTDOWN_SECONDS"])
    assert graceful >= read_timeout + deadline
