"""What the service's HTML pages (`/viewer`, `/docs`) tell a browser about themselves, and the
relative redirect between a path and its trailing-slash twin.

Both pages load only what the service serves itself (the viewer's script and style under
`/viewer/assets`, Swagger UI's bundle under `/docs/assets`) and talk only to the service, so their
Content-Security-Policy allows `'self'` and nothing else: a transcript pasted into the viewer
cannot be sent to another host by an injected script, and both pages keep working where no other
host can be reached. Swagger UI starts from one inline script (FastAPI's page); it is allowed by
its hash, not by `'unsafe-inline'`. Swagger UI's React components set inline styles, so its
page allows inline styles (styles cannot run code); the viewer's does not. Neither page may be
framed (`frame-ancestors 'none'` and, for older browsers, `X-Frame-Options: DENY`), and
`X-Content-Type-Options: nosniff` keeps a browser from reading a served file as another type.

Starlette's own trailing-slash redirect builds its `Location` from the request's `Host` header, so
a request with a forged `Host` would be sent to another site; the redirect here is relative (the
path alone, with the query), and a browser resolves it against the address it used.
"""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import quote

from fastapi.openapi.docs import get_swagger_ui_html
from starlette.responses import RedirectResponse
from starlette.routing import Match, Router
from starlette.types import ASGIApp, Receive, Scope, Send

_COMMON = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}

_BASE_POLICY = (
    "default-src 'none'; connect-src 'self'; img-src 'self' data:; font-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

VIEWER_HEADERS = {
    **_COMMON,
    "Content-Security-Policy": f"{_BASE_POLICY}; script-src 'self'; style-src 'self'",
}

_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def inline_script_hashes(html: str) -> list[str]:
    """The CSP source (`'sha256-…'`) of every inline script of `html`."""
    return [
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
        for script in _INLINE_SCRIPT.findall(html)
    ]


def docs_headers(html: str) -> dict[str, str]:
    """The headers of the Swagger UI page whose HTML is `html` (its inline script by hash)."""
    scripts = " ".join(["'self'", *inline_script_hashes(html)])
    return {
        **_COMMON,
        "Content-Security-Policy": (
            f"{_BASE_POLICY}; script-src {scripts}; style-src 'self' 'unsafe-inline'"
        ),
    }


def swagger_page(title: str, assets: str) -> tuple[bytes, dict[str, str]]:
    """Swagger UI's page, loading its files from `assets`, and its headers. The page is the same
    for every request, so it is built once, with the policy that allows its script."""
    page = get_swagger_ui_html(
        openapi_url="/openapi.json",
        title=title,
        swagger_js_url=f"{assets}/swagger-ui-bundle.js",
        swagger_css_url=f"{assets}/swagger-ui.css",
        swagger_favicon_url=f"{assets}/favicon.png",
    )
    return bytes(page.body), docs_headers(bytes(page.body).decode())


def relative_slash_redirects(router: Router) -> None:
    """Replace `router`'s trailing-slash redirect by one whose `Location` is relative."""
    router.redirect_slashes = False
    fallback: ASGIApp = router.default

    async def default(scope: Scope, receive: Receive, send: Send) -> None:
        location = _slash_twin(router, scope) if scope["type"] == "http" else None
        if location is None:
            await fallback(scope, receive, send)
            return
        await RedirectResponse(location)(scope, receive, send)

    router.default = default


def _slash_twin(router: Router, scope: Scope) -> str | None:
    """The relative address of the path with its trailing slash added or removed, when a route
    matches that; else None."""
    path: str = scope["path"]
    root = scope.get("root_path", "")
    route_path = path[len(root) :] if root and path.startswith(root) else path
    if route_path in ("", "/"):
        return None
    twin = route_path.rstrip("/") if route_path.endswith("/") else route_path + "/"
    probe = {**scope, "path": (root + twin) if root and path.startswith(root) else twin}
    if not any(route.matches(probe)[0] is not Match.NONE for route in router.routes):
        return None
    # One leading slash only: `//host/...` would be read as another host.
    location = "/" + quote(probe["path"], safe="/:@!$&'()*+,;=-._~").lstrip("/")
    query = scope.get("query_string", b"")
    return f"{location}?{query.decode('latin-1')}" if query else location
