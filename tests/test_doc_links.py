"""Every link between the repository's own documents resolves, anchors included.

The Markdown files checked are every one of the repository (tracked, or new and not ignored by
git): README.md, CHANGELOG.md, docs/ (the decision records included) and any other. In each,
every inline link or image `[text](target)` and every reference definition `[label]: target`
outside code is read:

- a target with a scheme (`https:`, `mailto:`) is not checked;
- a path, relative to the file (or to the repository's root when it starts with `/`), must name a
  file or directory of the repository (tracked, or new and not ignored: a build's output or a
  venv is not the repository's);
- an anchor (`docs/rules.md#turns`, or `#anchor` within the same file) must be one of the target
  Markdown file's headings, as GitHub writes them (`github_anchors`); an anchor on any other file
  (`app/main.py#L10`) is not checked, only the file.
"""

from __future__ import annotations

import re
import subprocess
import unicodedata
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
# `[text](target)` or `![alt](target)`, the target optionally in <> and followed by a title.
INLINE_LINK = re.compile(r"\]\(\s*(<[^>\n]*>|[^\s()]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*(<[^>\n]*>|\S+)", re.MULTILINE)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
HTML_ANCHOR = re.compile(r"<a\s[^>]*\b(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)


def tracked_files() -> set[str]:
    """The repository's files on disk: tracked, or new and not ignored (so a document being written
    can be linked before `git add`)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    return {name.decode() for name in listed if name and (ROOT / name.decode()).is_file()}


TRACKED = tracked_files()
TRACKED_DIRECTORIES = {
    str(parent) for name in TRACKED for parent in PurePosixPath(name).parents if str(parent) != "."
}
DOCUMENTS = sorted(name for name in TRACKED if name.endswith(".md"))


def without_code(text: str) -> str:
    """`text` with fenced code blocks and code spans blanked out (newlines kept, so offsets and
    line numbers stay those of the file)."""
    lines = text.split("\n")
    fence: str | None = None
    for number, line in enumerate(lines):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            lines[number] = ""
        elif fence is not None:
            closing = FENCE.match(line)
            if (
                closing
                and closing.group(1)[0] == fence[0]
                and len(closing.group(1)) >= len(fence)
                and not line.strip().strip(fence[0])
            ):
                fence = None
            lines[number] = ""
    # A code span never crosses a blank line: look for them paragraph by paragraph.
    paragraphs = re.split(r"(\n[ \t]*\n)", "\n".join(lines))
    return "".join(
        CODE_SPAN.sub(lambda span: re.sub(r"[^\n]", " ", span.group(0)), paragraph)
        for paragraph in paragraphs
    )


def heading_texts(text: str) -> Iterator[str]:
    """The text of every heading outside fenced code, in order (ATX and setext)."""
    lines = text.split("\n")
    fence: str | None = None
    previous = ""
    for line in lines:
        opened = FENCE.match(line)
        if fence is None and opened:
            fence, previous = opened.group(1), ""
            continue
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        atx = ATX_HEADING.match(line)
        if atx:
            yield atx.group(2) or ""
            previous = ""
            continue
        if previous.strip() and SETEXT_UNDERLINE.match(line) and not previous.startswith("    "):
            yield previous.strip()
            previous = ""
            continue
        previous = line


def rendered(heading: str) -> str:
    """The plain text GitHub renders for a heading's Markdown source."""
    text = CODE_SPAN.sub(lambda span: span.group(2).strip(), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"(?<!\w)_(\S(?:.*?\S)?)_(?!\w)", r"\1", text)
    return text.replace("*", "")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading (github-slugger): lowercase; every character that is not a
    letter, a digit, a mark, `-`, `_` or a space removed; each space turned into `-`."""
    kept = (
        character
        for character in rendered(heading).strip().lower()
        if character.isalnum()
        or character in "-_ "
        or unicodedata.category(character).startswith("M")
    )
    return "".join(kept).replace(" ", "-")


def github_anchors(text: str) -> set[str]:
    """The anchors of a Markdown file's headings; a repeated one gets `-1`, `-2`, … as on GitHub.
    Explicit `<a name="…">`/`<a id="…">` anchors count too."""
    anchors: set[str] = set(HTML_ANCHOR.findall(without_code(text)))
    for heading in heading_texts(text):
        base = candidate = slug(heading)
        repeat = 0
        while candidate in anchors:
            repeat += 1
            candidate = f"{base}-{repeat}"
        anchors.add(candidate)
    return anchors


def links(text: str) -> Iterator[tuple[int, str]]:
    """(line number, target) of every link outside code."""
    plain = without_code(text)
    for pattern in (INLINE_LINK, REFERENCE_DEFINITION):
        for found in pattern.finditer(plain):
            target = found.group(1)
            if target.startswith("<") and target.endswith(">"):
                target = target[1:-1]
            yield plain.count("\n", 0, found.start(1)) + 1, target


def resolved(document: str, path: str) -> str | None:
    """The repository path a link's path part names, or None when it leaves the repository."""
    base = PurePosixPath() if path.startswith("/") else PurePosixPath(document).parent
    parts: list[str] = []
    for part in (base / path.lstrip("/")).parts:
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


ANCHORS: dict[str, set[str]] = {}


def anchors_of(name: str) -> set[str]:
    if name not in ANCHORS:
        ANCHORS[name] = github_anchors((ROOT / name).read_text(encoding="utf-8"))
    return ANCHORS[name]


def broken_links(document: str, text: str | None = None) -> list[str]:
    """Every link of `document` (its text as committed unless given) that does not resolve."""
    if text is None:
        text = (ROOT / document).read_text(encoding="utf-8")
    own_anchors = github_anchors(text)
    broken = []
    for line, target in links(text):
        if SCHEME.match(target):
            continue
        path, _, anchor = target.partition("#")
        path = unquote(path.split("?", 1)[0])
        anchor = unquote(anchor)
        name = resolved(document, path) if path else document
        where = f"{document}:{line}: {target}"
        if name is None or (
            name and name not in TRACKED and name.rstrip("/") not in TRACKED_DIRECTORIES
        ):
            broken.append(f"{where} (no such file or directory in the repository)")
        elif (
            anchor
            and name.endswith(".md")
            and anchor not in (own_anchors if name == document else anchors_of(name))
        ):
            broken.append(f"{where} (no heading of {name} has the anchor #{anchor})")
        elif not name and anchor:
            broken.append(f"{where} (an anchor on the repository's root)")
    return broken


def test_the_documents_are_found():
    assert {"README.md", "docs/rules.md"} <= set(DOCUMENTS)
    assert any(name.startswith("docs/decisions/") for name in DOCUMENTS)


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_link_of_a_document_resolves(document: str):
    assert broken_links(document) == []


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("The plan's answer", "the-plans-answer"),
        ("Turn fates and held_by", "turn-fates-and-held_by"),
        ("`auto`", "auto"),
        (
            "0024 The suite runs on both cores, the timed tests alone",
            "0024-the-suite-runs-on-both-cores-the-timed-tests-alone",
        ),
        ("Front or further in", "front-or-further-in"),
        ("A — B", "a--b"),
        ("[The link](README.md) and *emphasis*", "the-link-and-emphasis"),
        ("Python 3.13: measured", "python-313-measured"),
    ],
)
def test_a_heading_s_anchor_is_github_s(heading: str, anchor: str):
    assert slug(heading) == anchor


def test_repeated_headings_get_numbered_anchors_and_code_is_not_read():
    text = (
        "# Usage\n\n## Usage\n\n```md\n# Not a heading\n[x](docs/missing.md)\n```\n\nUsage\n---\n"
    )
    assert github_anchors(text) == {"usage", "usage-1", "usage-2"}
    assert list(links(text)) == []
    assert list(links("See `[x](docs/missing.md)` and [y](README.md#set-up 'title').")) == [
        (1, "README.md#set-up")
    ]


def test_paths_resolve_from_the_document_or_the_root():
    assert resolved("docs/decisions/0001.md", "../rules.md") == "docs/rules.md"
    assert resolved("docs/rules.md", "/app/main.py") == "app/main.py"
    assert resolved("README.md", "../outside.md") is None


def test_each_kind_of_broken_link_is_reported():
    text = "\n".join(
        [
            "# Top",
            "[ok](#top) [ok](docs/rules.md#the-current-request) [ok](docs/decisions/)",
            "[ok](app/main.py#L1) [ok](https://example.com/x.md#y) [ok](mailto:a@b.c)",
            "[missing file](docs/nothing.md)",
            "[missing anchor](docs/rules.md#no-such-rule)",
            "[missing own anchor](#bottom)",
            "[missing directory](docs/nowhere/)",
            "[outside](../elsewhere.md)",
        ]
    )
    assert [line.split(":")[1] for line in broken_links("README.md", text)] == [
        "4",
        "5",
        "6",
        "7",
        "8",
    ]
