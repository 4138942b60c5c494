"""`cwp-audit`: replay recorded runs through the planner and report what each window kept.

The command decides only how it is asked and how it answers (arguments, exit status, where each
report goes); the replay and its figures are `app.audit.replay`'s, the reports
`app.audit.report`'s. It exits 1 when any window of a service configuration is one a provider
would refuse, always, because that is a broken guarantee rather than a weak figure; and with
`--fail-under`, when a service configuration keeps less evidence than asked (a peer is
reported beside them, never judged). An unreadable file is one
line on stderr and the audit goes on with the others.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import orjson

from app.audit.replay import DEFAULT_CONFIGS, DEFAULT_FRACTION, Audit, AuditError, http_planner
from app.audit.report import html, table
from app.tokenizers import TOKENIZERS, counter


def sample_paths() -> list[Path]:
    """The bundled samples (`app/audit/samples/`), in name order."""
    folder = files("app.audit").joinpath("samples")
    return sorted(Path(str(item)) for item in folder.iterdir() if item.name.endswith(".json"))


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(
        prog="cwp-audit",
        description="Replay recorded agent transcripts through the planner and measure what each "
        "window kept (docs/quality.md).",
    )
    parse.add_argument("files", nargs="*", type=Path, help="transcripts (JSON, or JSONL)")
    parse.add_argument("--samples", action="store_true", help="audit the bundled samples")
    parse.add_argument("--config", type=Path, help='configurations: {"name": {options}, ...}')
    parse.add_argument("--print-config", action="store_true", help="print the default set")
    parse.add_argument("--budget-fraction", type=float, default=DEFAULT_FRACTION, metavar="F")
    parse.add_argument("--tokenizer", choices=TOKENIZERS, default="estimate")
    parse.add_argument("--json", type=Path, metavar="OUT", help="write every figure as JSON")
    parse.add_argument("--html", type=Path, metavar="OUT", help="write a self-contained page")
    parse.add_argument("--url", help="plan against a running service at URL")
    parse.add_argument("--fail-under", type=float, metavar="FRACTION")
    return parse


def progress_bar(done: int, total: int) -> None:
    width = 30
    filled = width * done // max(1, total)
    end = "\n" if done >= total else ""
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} plans", end=end,
          file=sys.stderr, flush=True)  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.print_config:
        print(orjson.dumps(DEFAULT_CONFIGS, option=orjson.OPT_INDENT_2).decode())
        return 0
    configs: dict[str, Any] = DEFAULT_CONFIGS
    if args.config is not None:
        configs = orjson.loads(args.config.read_bytes())
    paths = [*args.files, *(sample_paths() if args.samples else [])]
    if not paths:
        parser().error("name at least one file, or --samples")
    audit = Audit(
        configs,
        args.budget_fraction,
        args.tokenizer,
        counter(args.tokenizer),
        progress=progress_bar if sys.stderr.isatty() else None,
    )
    if args.url:
        audit.planner = http_planner(args.url)
    try:
        audit.run(paths, lambda line: print(line, file=sys.stderr))
    except AuditError as error:  # the service could not be reached or refused a plan
        print(f"cwp-audit: {error}", file=sys.stderr)
        return 2
    summary = audit.summary()
    print(table(summary))
    for entry in summary["files"]:
        if entry.get("note"):
            print(f"{entry['file']}: {entry['note']}")
    if args.json is not None:
        series = {name: [vars(step) for step in steps] for name, steps in audit.series()}
        args.json.write_bytes(
            orjson.dumps({**summary, "series": series}, option=orjson.OPT_INDENT_2)
        )
    if args.html is not None:
        args.html.write_text(html(audit), encoding="utf-8")
    status = 0
    for name, figures in audit.figures.items():
        if figures.peer is None and figures.violations:
            print(f"{name}: {len(figures.violations)} invalid window(s):", file=sys.stderr)
            for line in figures.violations[:5]:
                print(f"  {line}", file=sys.stderr)
            status = 1
        missed = figures.not_floor()
        if missed:
            print(f"{name}: {len(missed)} over-budget step(s) that are not floor steps "
                  "(the plan could have met the budget):", file=sys.stderr)  # fmt: skip
            for step in missed[:5]:
                print(f"  {step.file} step {step.step}: total {step.total:,} over B "
                      f"{step.budget:,}, floor {step.floor:,}", file=sys.stderr)  # fmt: skip
            status = 1
        share = figures.summary()["evidence_kept"]
        judged = figures.peer is None  # a peer is reported beside the service, never judged
        if judged and args.fail_under is not None and share is not None and share < args.fail_under:
            print(f"{name}: evidence kept {share:.1%} is under {args.fail_under:.1%}",
                  file=sys.stderr)  # fmt: skip
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
