"""How `cwp-audit` is asked: bad invocations refused (status 2, one line naming the configuration
and the field) before any file is replayed, in process as with `--url`, and `--strict`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from app.audit import cli
from app.audit.configs import ConfigError, check_configs

SAMPLES = cli.sample_paths()
OPENHANDS = next(path for path in SAMPLES if path.name == "openhands-todo-app.json")
# A port nothing listens on: a planner that tried it would fail with a connection error.
DEAD_URL = "http://127.0.0.1:9"


def write(path: Path, value: Any) -> Path:
    path.write_bytes(orjson.dumps(value))
    return path


@pytest.mark.parametrize(
    ("configs", "said"),
    [
        ([], "the configurations must be a JSON object"),
        ({"a": []}, 'configuration "a": must be a JSON object'),
        ({"a": {"stratgy": {}}}, 'configuration "a": stratgy: '),
        ({"a": {"strategy": {"kind": "fit"}}}, 'configuration "a": strategy.max_tokens: '),
        (
            {"a": {"strategy": {"kind": "fit", "max_tokens": "{B}", "target_tokens": 0}}},
            'configuration "a": strategy.target_tokens: ',
        ),
        (
            {"a": {"strategy": {"kind": "fit", "max_tokens": 500, "target_tokens": 600}}},
            'configuration "a": strategy.target_tokens: must be at most max_tokens',
        ),
        ({"a": {"strategy": {"kind": "fit", "max_tokens": "B"}}}, "strategy.max_tokens: "),
        ({"a": {"keep_last_tool_results": -1}}, 'configuration "a": keep_last_tool_results: '),
        ({"a": {"messages": []}}, 'configuration "a": messages: comes from each file'),
        ({"a": {"format": "openai"}}, 'configuration "a": format: comes from each file'),
        ({"a": {"iteration": 3}}, 'configuration "a": iteration: the audit sends it'),
        ({"a": {"include_window": False}}, 'configuration "a": include_window: '),
        ({"p": {"peer": "truncate"}}, 'configuration "p": peer: unknown peer "truncate"'),
        ({"p": {"peer": "trim", "max_tokens": 3}}, 'configuration "p": max_tokens: '),
    ],
)
def test_a_bad_configuration_is_named_with_its_field(configs: Any, said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        check_configs(configs)
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)


def test_the_default_configurations_and_a_summary_configuration_pass() -> None:
    from app.audit.replay import DEFAULT_CONFIGS

    assert check_configs(DEFAULT_CONFIGS) == DEFAULT_CONFIGS
    clear = {"c": {"strategy": {"kind": "token-budget", "threshold_tokens": "{B}"}, "clear": {}}}
    check_configs(clear)


@pytest.mark.parametrize("url", [None, DEAD_URL])
def test_a_bad_configuration_exits_2_before_any_file_is_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str | None
) -> None:
    config = write(tmp_path / "c.json", {"ok": {}, "tight": {"strategy": {"kind": "fit"}}})
    out = tmp_path / "a.json"
    args = [str(OPENHANDS), "--config", str(config), "--json", str(out)]
    assert cli.main([*args, *(["--url", url] if url else [])]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert line.startswith(f"cwp-audit: --config {config}: ")
    assert 'configuration "tight": strategy.max_tokens: ' in line
    assert captured.out == "" and not out.exists()


@pytest.mark.parametrize(
    "content", [None, b"{not json", b'{"a": {"strategy": {"kind": "fit", "max_tokens": 0}}}']
)
def test_an_unreadable_or_invalid_config_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes | None
) -> None:
    config = tmp_path / "c.json"
    if content is not None:
        config.write_bytes(content)
    assert cli.main([str(OPENHANDS), "--config", str(config)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"cwp-audit: --config {config}: ")


@pytest.mark.parametrize("fraction", ["0", "-0.5", "1.5", "nan", "inf", "half", ""])
def test_a_budget_fraction_outside_0_to_1_exits_2(
    capsys: pytest.CaptureFixture[str], fraction: str
) -> None:
    assert cli.main([str(OPENHANDS), "--budget-fraction", fraction, "--url", DEAD_URL]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("cwp-audit: --budget-fraction: ") and "(0, 1]" in line
    assert captured.out == ""


def test_a_budget_fraction_of_1_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([str(OPENHANDS), "--budget-fraction", "1"]) == 0
    assert "budget fraction 1.0" in capsys.readouterr().out


def test_strict_makes_an_unreadable_file_exit_2_after_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("[1, 2", encoding="utf-8")
    missing = tmp_path / "missing.json"
    assert cli.main([str(broken), str(OPENHANDS)]) == 0
    capsys.readouterr()
    assert cli.main([str(broken), str(missing), str(OPENHANDS), "--strict"]) == 2
    captured = capsys.readouterr()
    assert "configuration" in captured.out  # the report was written first
    assert f"{broken}: " in captured.err and f"{missing}: " in captured.err
    assert "--strict: 2 input file(s) could not be read" in captured.err
