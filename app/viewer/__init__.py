"""The plan viewer's files, served by `app.api.routes.viewer`: the page (`index.html`), its script
and style (`assets/`, plain JavaScript and CSS with no build step, so the installed package is all
the page needs), one small example transcript per format (`examples/`), and which transcripts the
page opens by name (`transcripts`).

A package, so the files travel with `pip install .` as package data.
"""

from __future__ import annotations

from pathlib import Path

VIEWER = Path(__file__).resolve().parent
ASSETS = VIEWER / "assets"
EXAMPLES = VIEWER / "examples"
# The recorded samples the audit reads, which the viewer opens too (when the folder is there).
SAMPLES = VIEWER.parent / "audit" / "samples"


def transcripts() -> dict[str, Path]:
    """Every transcript the viewer can open, by name (the file name without its suffix).

    The samples are read after the examples, so a sample wins over an example of the same name;
    within one folder `.json` wins over `.jsonl`. Read on each request: the folders are small, and
    a sample added to an installed package is listed without a restart."""
    found: dict[str, Path] = {}
    for folder in (EXAMPLES, SAMPLES):
        if not folder.is_dir():
            continue
        for suffix in (".jsonl", ".json"):
            for path in sorted(folder.glob(f"*{suffix}")):
                if path.is_file():
                    found[path.stem] = path
    return dict(sorted(found.items()))
