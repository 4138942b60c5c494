"""The pages' security headers, the relative trailing-slash redirect and `HEAD` on the probes."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.api.pages import inline_script_hashes
from app.main import create_app
from app.settings import Settings


def client() -> TestClient:
    return TestClient(create_app(Settings()))


def test_the_viewer_and_docs_send_a_policy_of_their_own_host_and_no_framing():
    with client() as c:
        for path in ("/viewer", "/docs"):
            answer = c.get(path)
            assert answer.status_code == 200
            policy = answer.headers["content-security-policy"]
            assert "default-src 'none'" in policy
            assert "frame-ancestors 'none'" in policy
            assert answer.headers["x-frame-options"] == "DENY"
            assert answer.headers["x-content-type-options"] == "nosniff"
            sources = re.findall(r"(?:https?:)?//[^\s;']+", policy)
            assert sources == []  # nothing from another host


def test_swagger_uis_inline_script_is_allowed_by_its_hash_and_the_viewer_has_none():
    with client() as c:
        docs = c.get("/docs")
        hashes = inline_script_hashes(docs.text)
        assert len(hashes) == 1
        script_src = docs.headers["content-security-policy"].split("script-src ")[1].split(";")[0]
        assert script_src.split() == ["'self'", *hashes]
        assert "'unsafe-inline'" not in script_src
        viewer = c.get("/viewer")
        assert inline_script_hashes(viewer.text) == []
        assert "'unsafe-inline'" not in viewer.headers["content-security-policy"]


def test_the_trailing_slash_redirect_is_relative_whatever_the_host_header():
    with client() as c:
        for host in ("planner", "attacker.example"):
            answer = c.get("/viewer/", headers={"host": host}, follow_redirects=False)
            assert answer.status_code == 307
            assert answer.headers["location"] == "/viewer"
        answer = c.get("/viewer/?sample=example-openai", follow_redirects=False)
        assert answer.headers["location"] == "/viewer?sample=example-openai"
        assert c.get("/viewer/").status_code == 200  # followed: the page
        assert c.get("/nowhere/", follow_redirects=False).status_code == 404


def test_the_probes_answer_head_with_their_get_status_and_no_body():
    app = create_app(Settings())
    with TestClient(app) as c:
        for path in ("/healthz", "/readyz"):
            answer = c.head(path)
            assert answer.status_code == 200 and answer.content == b""
        app.state.lifecycle.shutting_down = True
        assert c.head("/readyz").status_code == 503
        assert c.head("/healthz").status_code == 200
