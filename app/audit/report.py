"""The audit's reports: the table on stdout, and one self-contained HTML page.

The page must open anywhere, offline and years later, so it carries everything inline: its style,
and its charts as SVG written here (no script, no external request). Numbers are written as the
table writes them, so the page and the terminal never disagree. Each file's token chart draws its
budget as a line, because the budget is the model's limit: a point above it is a window a provider
refuses, which a reader should see without reading a figure. The files the audit could not use
are listed with the reason, so that a page never looks complete when it is not.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from app.audit.replay import Audit, StepFigures

COLUMNS = (
    ("configuration", "configuration"),
    ("evidence kept", "evidence_kept"),
    ("kept/evidence", "kept"),
    ("recallable", "evidence_recallable"),
    ("kept + recallable", "evidence_kept_or_recallable"),
    ("tokens sent", "tokens_sent"),
    ("billed", "billed_tokens"),
    ("misses", "cache_misses"),
    ("invalid", "invalid_windows"),
    ("over B", "over_budget_steps"),
    ("max total/B", "over_budget_max_ratio"),
    ("not floor", "over_budget_not_floor"),
    ("engaged", "engaged_steps"),
    ("plan ms", "plan_ms_median"),
    ("summary requests", "summary_requests"),
    ("summary cached", "summary_cached_share"),
)
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2")


def cells(name: str, figures: dict[str, Any]) -> list[str]:
    """One row of the table as texts."""
    share = figures["evidence_kept"]
    median = figures["plan_ms_median"]
    share_cached = figures["summary_cached_share"]
    ratio = figures["over_budget_max_ratio"]
    not_floor = figures["over_budget_not_floor"]
    row = [
        name,
        "n/a" if share is None else f"{share:.1%}",
        f"{figures['kept']}/{figures['evidence']}",
        recall_cell(figures, "evidence_recallable"),
        recall_cell(figures, "evidence_kept_or_recallable"),
        f"{figures['tokens_sent']:,}",
        f"{figures['billed_tokens']:,}",
        f"{figures['cache_misses']}/{figures['steps']}",
        str(figures["invalid_windows"]),
        f"{figures['over_budget_steps']}/{figures['steps']}",
        "–" if ratio is None else f"{ratio:.2f}",
        "–" if not_floor is None else str(not_floor),
        f"{figures['engaged_steps']}/{figures['steps']}",
        "n/a" if median is None else f"{median:.2f}",
        summary_cell(figures),
        "–" if share_cached is None else f"{share_cached:.1%}",
    ]
    if figures.get("skipped"):
        row[0] += f" (skipped on {len(figures['skipped'])} file(s))"
    return row


def recall_cell(figures: dict[str, Any], key: str) -> str:
    """A share measured only with recall on: – for a configuration without it, n/a with no
    evidence."""
    if figures.get("recallable") is None:
        return "–"
    share = figures[key]
    return "n/a" if share is None else f"{share:.1%}"


def summary_cell(figures: dict[str, Any]) -> str:
    """The summary requests made and their tokens; a dash for a configuration that made none."""
    if not figures["summary_requests"]:
        return "–"
    return f"{figures['summary_requests']} ({figures['summary_tokens']:,} tok)"


def skipped_lines(summary: dict[str, Any]) -> list[str]:
    """Why a configuration was skipped, a line per reason with how many files it skipped: a peer
    missing its dependency says once, for every file, what to install."""
    lines = []
    for name, figures in summary["configurations"].items():
        reasons = Counter(skipped["reason"] for skipped in figures.get("skipped", ()))
        lines += [f"{name}: skipped on {n} file(s): {reason}" for reason, n in reasons.items()]
    return lines


def table(summary: dict[str, Any]) -> str:
    """The table of every configuration, in columns padded for a terminal."""
    rows = [[title for title, _ in COLUMNS]]
    rows += [cells(name, figures) for name, figures in summary["configurations"].items()]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = []
    for number, row in enumerate(rows):
        lines.append(
            "  ".join(
                cell.ljust(width) if i == 0 else cell.rjust(width)
                for i, (cell, width) in enumerate(zip(row, widths, strict=True))
            ).rstrip()
        )
        if number == 0:
            lines.append("  ".join("-" * width for width in widths))
    files = ", ".join(
        f"{Path(f['file']).name} ({f['format']}, {f['steps']} steps, B={f['budget']}, "
        f"{len(f['floor_steps'])} floor steps)"
        if "error" not in f
        else f"{Path(f['file']).name} (unreadable)"
        for f in summary["files"]
    )
    head = (
        f"budget fraction {summary['budget_fraction']}, tokenizer {summary['tokenizer']}; "
        f"files: {files}"
    )
    return head + "\n" + "\n".join(lines)


def _scatter(summary: dict[str, Any]) -> str:
    """Evidence kept (y) against tokens sent (x), one labelled point per configuration."""
    points = [
        (name, figures["tokens_sent"], figures["evidence_kept"])
        for name, figures in summary["configurations"].items()
        if figures["evidence_kept"] is not None
    ]
    width, height, pad = 640, 320, 50
    most = max((x for _, x, _ in points), default=1) or 1
    parts = [
        f'<svg viewBox="0 0 {width} {height}" role="img" aria-label="evidence kept against '
        'tokens sent">',
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - 10}" y2="{height - pad}" '
        'class="axis"/>',
        f'<line x1="{pad}" y1="10" x2="{pad}" y2="{height - pad}" class="axis"/>',
        f'<text x="{width // 2}" y="{height - 12}" text-anchor="middle">tokens sent</text>',
        f'<text x="14" y="{height // 2}" transform="rotate(-90 14 {height // 2})" '
        'text-anchor="middle">evidence kept</text>',
    ]
    for tick in (0, 0.5, 1):
        y = height - pad - tick * (height - pad - 10)
        parts.append(f'<text x="{pad - 6}" y="{y + 4:.0f}" text-anchor="end">{tick:.0%}</text>')
    parts.append(
        f'<text x="{width - 10}" y="{height - pad + 16}" text-anchor="end">{most:,}</text>'
    )
    for number, (name, x, y) in enumerate(points):
        cx = pad + x / most * (width - pad - 20)
        cy = height - pad - y * (height - pad - 10)
        colour = PALETTE[number % len(PALETTE)]
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="6" fill="{colour}"/>')
        parts.append(
            f'<text x="{cx + 9:.1f}" y="{cy + 4:.1f}" fill="{colour}">{escape(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _lines(title: str, series: dict[str, list[float]], budget: int | None = None) -> str:
    """One small line chart: a line per configuration over a file's steps, and the budget as a
    dashed horizontal line when given (the scale reaches it, so it is always drawn)."""
    width, height, pad = 640, 180, 40
    longest = max((len(values) for values in series.values()), default=1)
    top = max((max(values) for values in series.values() if values), default=1) or 1
    if budget is not None:
        top = max(top, budget)
    parts = [
        f'<svg viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">',
        f'<text x="{pad}" y="14">{escape(title)} (max {top:,.0f})</text>',
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - 10}" y2="{height - pad}" '
        'class="axis"/>',
    ]
    if budget is not None:
        y = height - pad - budget / top * (height - pad - 24)
        parts.append(
            f'<line x1="{pad}" y1="{y:.1f}" x2="{width - 10}" y2="{y:.1f}" class="budget"/>'
            f'<text x="{width - 10}" y="{y - 4:.1f}" text-anchor="end">B = {budget:,}</text>'
        )
    for number, values in enumerate(series.values()):
        step = (width - pad - 20) / max(1, longest - 1)
        coords = " ".join(
            f"{pad + i * step:.1f},{height - pad - v / top * (height - pad - 24):.1f}"
            for i, v in enumerate(values)
        )
        colour = PALETTE[number % len(PALETTE)]
        parts.append(f'<polyline points="{coords}" fill="none" stroke="{colour}"/>')
    parts.append("</svg>")
    return "".join(parts)


def legend(names: Sequence[str]) -> str:
    return "".join(
        f'<span class="key" style="color:{PALETTE[i % len(PALETTE)]}">■ {escape(name)}</span>'
        for i, name in enumerate(names)
    )


STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;color:#222}
table{border-collapse:collapse}td,th{padding:.25rem .6rem;border-bottom:1px solid #ddd}
td:not(:first-child),th:not(:first-child){text-align:right}svg{width:100%;height:auto}
svg text{font-size:11px;fill:#444}.axis{stroke:#999}.key{margin-right:1rem}
.budget{stroke:#000;stroke-dasharray:6 4}.wide{overflow-x:auto}
"""


def html(audit: Audit) -> str:
    """The page: the table, the chart of evidence kept against tokens sent, per file a line per
    configuration of its window totals (with the budget) and of its evidence kept over the steps
    and its floor steps, and the files that could not be audited, with the reason."""
    summary = audit.summary()
    rows = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in cells(name, figures)) + "</tr>"
        for name, figures in summary["configurations"].items()
    )
    head = "".join(f"<th>{escape(title)}</th>" for title, _ in COLUMNS)
    names = list(summary["configurations"])
    files = []
    unused = []
    for entry in summary["files"]:
        if "error" in entry or not entry["steps"]:
            reason = entry.get("error") or entry.get("note") or "no steps"
            unused.append(f"<li>{escape(entry['file'])}: {escape(reason)}</li>")
            continue
        by_config: dict[str, list[StepFigures]] = {
            name: [s for s in series if s.file == entry["file"]] for name, series in audit.series()
        }
        totals = {name: [float(s.total) for s in steps] for name, steps in by_config.items()}
        kept = {name: [float(s.kept) for s in steps] for name, steps in by_config.items()}
        floor = ", ".join(map(str, entry["floor_steps"])) or "none"
        files.append(
            f"<h3>{escape(entry['file'])}</h3><p>{escape(entry['format'])}, "
            f"{entry['steps']} steps, budget {entry['budget']:,} tokens; floor steps: {floor}</p>"
            + _lines("window total per step (tokens and reserve)", totals, entry["budget"])
            + _lines("evidence kept per step", kept)
        )
    if unused:
        files.append(f"<h3>Files not audited</h3><ul>{''.join(unused)}</ul>")
    return (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        "<title>Context Window Planner audit</title>"
        f"<style>{STYLE}</style><h1>Audit</h1>"
        f"<p>Budget fraction {summary['budget_fraction']}, tokenizer "
        f"{escape(summary['tokenizer'])}. Billed tokens count a cached prefix at 10%, a "
        "simplification of the providers' cache prices; they include the summary requests, "
        "each billed against the window sent before it. A window's total is its tokens plus the "
        "reserve of a <code>fit</code> configuration; over B, a provider refuses it. A floor step "
        "is one where even what can never leave is over B.</p>"
        '<div class="wide">'
        f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"
        + "".join(f"<p>{escape(line)}</p>" for line in skipped_lines(summary))
        + f"<h2>Evidence kept against tokens sent</h2>{_scatter(summary)}"
        f"<h2>Per file</h2><p>{legend(names)}</p>{''.join(files)}</html>\n"
    )
