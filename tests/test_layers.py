"""The house's walls: which package may import which, and how large a route may grow.

`docs/architecture.md` names the layers: the core decides, the service runs the use cases with no
web framework, the HTTP layer (`app/api/`) alone knows FastAPI and alone reaches a route module.
These checks read the source (imports) and run a fresh interpreter (what importing the service
loads), so a wall that is crossed fails here, not in a review.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROUTES = ROOT / "app" / "api" / "routes"
# Every tree whose Python files may import the app.
TREES = ("app", "tests", "bench", "examples", "fuzz", "clients/python", "compiled_reader")
MAX_ROUTE_LINES = 150


def python_files() -> list[Path]:
    found: list[Path] = []
    for tree in TREES:
        found.extend(
            path
            for path in (ROOT / tree).rglob("*.py")
            if not any(part in {"node_modules", ".venv", "build"} for part in path.parts)
        )
    return found


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, by its full dotted name (`from a import b` names `a.b` too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_no_module_outside_the_http_layer_imports_a_route_module() -> None:
    route_modules = {f"app.api.routes.{path.stem}" for path in ROUTES.glob("*.py")}
    route_modules.discard("app.api.routes.__init__")
    api = ROOT / "app" / "api"
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_modules(path) & route_modules)
        for path in python_files()
        if api not in path.parents
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_service_loads_no_web_framework() -> None:
    modules = sorted(
        f"app.service.{path.stem}"
        for path in (ROOT / "app" / "service").glob("*.py")
        if path.stem != "__init__"
    )
    script = (
        "import sys\n"
        + "".join(f"import {module}\n" for module in modules)
        + "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastapi', 'starlette')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.strip()
    assert modules and loaded == "[]"


def test_the_core_imports_nothing_outside_itself_and_no_io() -> None:
    for path in (ROOT / "app" / "core").rglob("*.py"):
        for name in imported_modules(path):
            top = name.split(".")[0]
            assert top not in {"fastapi", "starlette", "httpx", "time", "os", "socket"}, path
            if top == "app":
                assert name.startswith("app.core"), (path, name)


def test_each_route_module_stays_small() -> None:
    sizes = {
        path.name: len(path.read_text(encoding="utf-8").splitlines())
        for path in ROUTES.glob("*.py")
    }
    assert {name: size for name, size in sizes.items() if size > MAX_ROUTE_LINES} == {}
