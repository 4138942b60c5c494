"""The audit as `make run` installs it (the package without the `test` extra): `--url` posts with
the standard library's HTTP client, and a peer whose optional dependency is missing is named with
the command that installs it, not shown as a silent n/a."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import orjson
import pytest

from app.audit import cli
from app.audit.peers import install_command
from app.errors import InvalidRequest
from app.service.plan import plan_request

SAMPLES = cli.sample_paths()
OPENHANDS = next(path for path in SAMPLES if path.name == "openhands-todo-app.json")
DEAD_URL = "http://127.0.0.1:9"


# ---- --url: the same bodies posted to a service ---------------------------------------------


class PlanHandler(BaseHTTPRequestHandler):
    """`POST /v1/window/plan` answered by the plan use case, as the service answers it."""

    protocol_version = "HTTP/1.1"
    posted: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.posted.append(self.path)
        try:
            status, answer = 200, plan_request(orjson.loads(body), 10_000).content
        except InvalidRequest as error:
            status, answer = 422, {"title": "Unprocessable", "detail": str(error)}
        data = orjson.dumps(answer, default=lambda value: value.__dict__)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def service() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), PlanHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/base/"
    finally:
        server.shutdown()
        server.server_close()


def test_url_posts_the_same_plans_to_a_service(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], service: str
) -> None:
    local, remote = tmp_path / "local.json", tmp_path / "remote.json"
    assert cli.main([str(OPENHANDS), "--json", str(local)]) == 0
    PlanHandler.posted.clear()
    assert cli.main([str(OPENHANDS), "--json", str(remote), "--url", service]) == 0
    capsys.readouterr()
    assert set(PlanHandler.posted) == {"/base/v1/window/plan"}

    def figures(path: Path) -> dict[str, Any]:
        report = json.loads(path.read_text(encoding="utf-8"))
        for config in report["configurations"].values():
            config.pop("plan_ms_median")
        return {"files": report["files"], "configurations": report["configurations"]}

    assert figures(local) == figures(remote)


def test_url_that_cannot_be_reached_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([str(OPENHANDS), "--url", DEAD_URL]) == 2
    assert f"cwp-audit: {DEAD_URL}: " in capsys.readouterr().err


# ---- a peer whose optional dependency is missing ---------------------------------------------


def test_a_missing_peer_dependency_is_named_with_its_install_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "langchain_core.messages", None)  # as if not installed
    command = install_command("langchain-core")
    assert command.startswith(f"{sys.executable} -m pip install 'langchain-core")
    out, page = tmp_path / "a.json", tmp_path / "a.html"
    assert cli.main([str(OPENHANDS), "--json", str(out), "--html", str(page)]) == 0
    stdout = capsys.readouterr().out
    assert (
        f"peer: LangChain trim_messages: skipped on 1 file(s): langchain-core is not installed; "
        f"install it with: {command}"
    ) in stdout
    report = json.loads(out.read_text(encoding="utf-8"))
    (skipped,) = report["configurations"]["peer: LangChain trim_messages"]["skipped"]
    assert command in skipped["reason"]
    assert "langchain-core is not installed; install it with: " in page.read_text("utf-8")
