"""`from_fields` (`tuple.__new__`) checks no field count: every call site is checked here.

Each call must name a named tuple and pass its fields as one tuple literal with exactly as many
items as the type has fields; a field added to `Message` or `ToolCall` makes this test fail naming
every call site that now shifts its values. The readers' hot loops are the only places allowed.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = {
    "app/formats/native.py",
    "app/formats/openai.py",
    "app/formats/anthropic.py",
    "app/formats/gemini.py",
    "app/formats/responses.py",
    "app/formats/bedrock.py",
}


def call_sites() -> list[tuple[str, int, ast.Call]]:
    sites = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "from_fields"
            ):
                sites.append((str(path.relative_to(ROOT)), node.lineno, node))
    return sites


def resolve(module_path: str, name: str) -> type:
    module = importlib.import_module(module_path.removesuffix(".py").replace("/", "."))
    value = getattr(module, name)
    assert isinstance(value, type), f"{module_path}: {name} is not a type"
    return value


def test_from_fields_is_used_only_in_the_readers() -> None:
    places = {path for path, _, _ in call_sites()}
    assert places <= ALLOWED, sorted(places - ALLOWED)
    assert places, "no call site found: the check would be vacuous"


def test_every_call_passes_every_field() -> None:
    wrong = []
    for path, line, call in call_sites():
        kind, values = call.args
        assert isinstance(kind, ast.Name), f"{path}:{line}: name the type directly"
        if not isinstance(values, ast.Tuple):
            wrong.append(f"{path}:{line}: {kind.id}'s fields must be a tuple literal")
            continue
        fields = resolve(path, kind.id)._fields  # type: ignore[attr-defined]
        if len(values.elts) != len(fields):
            wrong.append(
                f"{path}:{line}: {kind.id} has {len(fields)} fields, given {len(values.elts)}"
            )
    assert not wrong, "\n".join(wrong)
