"""Generates `cwp_client/generated` from the committed OpenAPI document, deterministically.

`make clients` runs it; the drift test runs it into a temporary directory and compares. The
output depends only on `openapi/openapi.json`, the pinned `openapi-python-client` and the ruff of
the same environment (run with `--isolated`, so no project configuration changes its output).

One step happens before the generator sees the document: the service's schemas use JSON Schema's
boolean schema `false` for a property that must be absent (a provider's usage object that must not
carry another provider's keys), which the generator's document model cannot read. Such a
property is left out of the copy handed to the generator: a generated model that does not declare
a field says the same thing, and the committed document itself is untouched.

Usage: python clients/python/generate.py [--output DIR]   (default: cwp_client/generated here)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DOCUMENT = HERE.parents[1] / "openapi" / "openapi.json"
CONFIG = HERE / "openapi-python-client.yaml"
TARGET = HERE / "cwp_client" / "generated"


def without_absent_properties(node: Any) -> Any:
    """`node` with every property whose schema is `false` removed from its `properties`."""
    if isinstance(node, dict):
        copy: dict[str, Any] = {}
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                copy[key] = {
                    name: without_absent_properties(schema)
                    for name, schema in value.items()
                    if schema is not False
                }
            else:
                copy[key] = without_absent_properties(value)
        return copy
    if isinstance(node, list):
        return [without_absent_properties(item) for item in node]
    return node


def generate(output: Path, document: Path = DOCUMENT) -> None:
    """Write the generated package to `output` (replaced if it exists)."""
    with tempfile.TemporaryDirectory(prefix="cwp-client-") as scratch:
        readable = Path(scratch) / "openapi.json"
        spec = json.loads(document.read_text(encoding="utf-8"))
        readable.write_text(json.dumps(without_absent_properties(spec)), encoding="utf-8")
        package = Path(scratch) / "generated"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "openapi_python_client",
                "generate",
                "--path",
                str(readable),
                "--meta",
                "none",
                "--config",
                str(CONFIG),
                "--output-path",
                str(package),
                "--fail-on-warning",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        ruff = [sys.executable, "-m", "ruff"]
        subprocess.run(
            [*ruff, "check", "--isolated", "--quiet", "--select", "I", "--fix-only", str(package)],
            check=True,
        )
        subprocess.run([*ruff, "format", "--isolated", "--quiet", str(package)], check=True)
        if output.exists():
            shutil.rmtree(output)
        shutil.copytree(package, output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=TARGET)
    generate(parser.parse_args().output)


if __name__ == "__main__":
    main()
