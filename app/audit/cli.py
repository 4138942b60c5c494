"""`cwp-audit`: replay recorded runs through the planner and report what each window kept.

The command decides only how it is asked and how it answers (arguments, exit status, where each
report goes); the replay and its figures are `app.audit.replay`'s, the reports
`app.audit.report`'s. Its exit statuses keep three kinds of outcome apart:
- 2, a bad invocation: an unreadable or invalid `--config` (`app.audit.configs`, which reads each
  configuration as the service would, in process even with `--url`) or a `--budget-fraction`
  outside (0, 1], refused with one line before any file is replayed, since any figure it gave
  would measure something else than asked; also a service that cannot be reached or refuses a
  plan, and, with `--strict`, an input file that could not be read (after the report, which the
  other files still deserve);
- 1, a broken guarantee of the service, always: a window of a service configuration a provider
  would refuse, or a service `fit` configuration's window over the budget at a step whose floor
  is not (it could have met the model's limit); and, with `--fail-under`, a service
  configuration keeping less evidence than asked. A peer is reported beside them, never judged;
- 0 otherwise. Without `--strict` an unreadable file is one line on stderr and the audit goes on
  with the others.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

import orjson

from app.audit.configs import ConfigError, check_configs
from app.audit.replay import DEFAULT_CONFIGS, DEFAULT_FRACTION, Audit, AuditError, http_planner
from app.audit.report import html, skipped_lines, table
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
    parse.add_argument("--budget-fraction", default=str(DEFAULT_FRACTION), metavar="F")
    parse.add_argument("--tokenizer", choices=TOKENIZERS, default="estimate")
    parse.add_argument("--json", type=Path, metavar="OUT", help="write every figure as JSON")
    parse.add_argument("--html", type=Path, metavar="OUT", help="write a self-contained page")
    parse.add_argument("--url", help="plan against a running service at URL")
    parse.add_argument("--fail-under", type=float, metavar="FRACTION")
    parse.add_argument(
        "--strict", action="store_true", help="exit 2 when an input file cannot be read"
    )
    return parse


class Refused(Exception):
    """A bad invocation: the message is the one line that says which option and why."""


def read_configs(path: Path | None) -> dict[str, Any]:
    """The configurations `--config` names (the default set without it), each one checked."""
    if path is None:
        return DEFAULT_CONFIGS
    try:
        configs = check_configs(orjson.loads(path.read_bytes()))
    except OSError as error:
        raise Refused(f"--config {path}: {error.strerror or error}") from error
    except orjson.JSONDecodeError as error:
        raise Refused(f"--config {path}: not JSON: {error}") from error
    except ConfigError as error:
        raise Refused(f"--config {path}: {error}") from error
    return configs


def read_fraction(text: str) -> float:
    """`--budget-fraction` as a number in (0, 1]."""
    try:
        fraction = float(text)
    except ValueError:
        fraction = math.nan
    if not 0 < fraction <= 1:  # NaN fails too
        raise Refused(f"--budget-fraction: {text!r} is not a number in (0, 1]")
    return fraction


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
    try:
        configs = read_configs(args.config)
        fraction = read_fraction(args.budget_fraction)
    except Refused as error:
        print(f"cwp-audit: {error}", file=sys.stderr)
        return 2
    paths = [*args.files, *(sample_paths() if args.samples else [])]
    if not paths:
        parser().error("name at least one file, or --samples")
    audit = Audit(
        configs,
        fraction,
        args.tokenizer,
        counter(args.tokenizer),
        progress=progress_bar if sys.stderr.isatty() else None,
    )
    try:
        if args.url:
            audit.planner = http_planner(args.url)
        audit.run(paths, lambda line: print(line, file=sys.stderr))
    except AuditError as error:  # the service could not be reached or refused a plan
        print(f"cwp-audit: {error}", file=sys.stderr)
        return 2
    summary = audit.summary()
    print(table(summary))
    for entry in summary["files"]:
        if entry.get("note"):
            print(f"{entry['file']}: {entry['note']}")
    for line in skipped_lines(summary):
        print(line)
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
    unread = [entry for entry in summary["files"] if "error" in entry]
    if args.strict and unread:
        print(f"cwp-audit: --strict: {len(unread)} input file(s) could not be read",
              file=sys.stderr)  # fmt: skip
        status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
