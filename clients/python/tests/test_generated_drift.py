"""The committed `cwp_client/generated` is exactly what `make clients` makes from the committed
`openapi/openapi.json`: regenerated into a temporary directory and compared file by file."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[1]
COMMITTED = CLIENT / "cwp_client" / "generated"


def generator():
    spec = importlib.util.spec_from_file_location("cwp_client_generate", CLIENT / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_the_committed_generated_code_is_what_the_generator_makes(tmp_path):
    fresh = tmp_path / "generated"
    generator().generate(fresh)
    expected, committed = files(fresh), files(COMMITTED)
    assert len(expected) > 50  # every model and endpoint module
    missing = sorted(expected.keys() - committed.keys())
    extra = sorted(committed.keys() - expected.keys())
    changed = sorted(
        name for name in expected.keys() & committed.keys() if expected[name] != committed[name]
    )
    assert (missing, extra, changed) == ([], [], []), (
        "cwp_client/generated differs from openapi/openapi.json: run `make clients`"
    )


def test_a_property_that_must_be_absent_is_left_out_of_the_generators_copy():
    strip = generator().without_absent_properties
    schema = {"properties": {"kept": {"type": "integer"}, "gone": False}, "required": ["kept"]}
    assert strip({"a": [schema]}) == {
        "a": [{"properties": {"kept": {"type": "integer"}}, "required": ["kept"]}]
    }
