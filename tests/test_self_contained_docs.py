"""The repository documents itself: nothing in it cites a document that is not in it.

The rules are stated in docs/rules.md; a docstring, comment, test or description that cites some
other document by file name and section sign leaves a reader with a reference they cannot follow.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A citation of a document by section sign, or of a markdown file by a bare name that no file in
# the repository has.
SECTION_SIGN = "\u00a7"
BARE_MARKDOWN_NAME = re.compile(r"(?<![\w/.-])([a-z][a-z0-9_-]*\.md)\b")


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    files = []
    for name in listed:
        path = ROOT / name.decode()
        if not name or not path.is_file() or path.suffix in {".png", ".jpg", ".ico", ".woff2"}:
            continue
        files.append(path)
    return files


def tracked_lines() -> list[tuple[str, int, str]]:
    """Every line of every tracked text file, as (path, line number, line)."""
    lines = []
    for path in tracked_text_files():
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        name = str(path.relative_to(ROOT))
        lines.extend((name, number, line) for number, line in enumerate(text.splitlines(), 1))
    return lines


def test_no_file_cites_a_section_of_an_outside_document():
    offenders = [
        f"{path}:{number}: {line.strip()}"
        for path, number, line in tracked_lines()
        if SECTION_SIGN in line
    ]
    assert offenders == []


def test_every_markdown_name_cited_is_a_file_of_the_repository():
    markdown_names = {path.name for path in tracked_text_files() if path.suffix == ".md"}
    offenders = [
        f"{path}:{number}: {name}"
        for path, number, line in tracked_lines()
        for name in BARE_MARKDOWN_NAME.findall(line)
        if name not in markdown_names
    ]
    assert offenders == []
