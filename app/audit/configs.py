"""The audit's configurations checked before anything is replayed.

A configuration the service would refuse would otherwise be found at the first step of the first
file, after part of the work, and with `--url` as an HTTP error far from its cause; worse, one the
audit silently overrides (a `messages` or `iteration` of its own) would measure something else
than asked. So every configuration is read here, in process whatever the planner: each service
configuration, with `"{B}"` standing for a budget, goes through the service's own reading of a
plan request (`read_plan_input`, on a one-message transcript), so that the audit accepts exactly
what the service accepts and names the field as the service's 422 would; a peer is `{"peer":
name}` and nothing else. The fields the audit sends itself are refused with the reason.
"""

from __future__ import annotations

from typing import Any

from app.audit.peers import PEERS
from app.audit.replay import substitute
from app.errors import InvalidRequest
from app.service.plan_input import read_plan_input

# A budget to stand for "{B}" while checking: any that the service accepts as a limit.
CHECK_BUDGET = 1000
# What each file brings, and what the audit sends to play the agent.
FROM_THE_FILE = ("messages", "format", "system")
FROM_THE_AUDIT = ("iteration", "prior_records", "summaries")
PROBE = [{"role": "user", "content": "probe"}]


class ConfigError(Exception):
    """A configuration the audit cannot run; the message names it and the field, on one line."""


def check_configs(configs: Any) -> dict[str, Any]:
    """`configs` itself when every configuration is one the audit can run, else ConfigError for
    the first that is not."""
    if not isinstance(configs, dict):
        raise ConfigError('the configurations must be a JSON object {"name": {options}, ...}')
    for name, config in configs.items():
        problem = config_problem(config)
        if problem is not None:
            raise ConfigError(f"configuration {quoted(name)}: {problem}")
    return configs


def config_problem(config: Any) -> str | None:
    """What is wrong with one configuration, starting with the field it is about; None when
    nothing is."""
    if not isinstance(config, dict):
        return "must be a JSON object (plan request options, or a peer)"
    if "peer" in config:
        for key in config:
            if key != "peer":
                return f"{key}: a peer takes no option besides `peer`"
        if config["peer"] not in PEERS:
            known = ", ".join(map(quoted, PEERS))
            return f"peer: unknown peer {quoted(config['peer'])} (known: {known})"
        return None
    for key in FROM_THE_FILE:
        if key in config:
            return f"{key}: comes from each file, not from a configuration"
    for key in FROM_THE_AUDIT:
        if key in config:
            return f"{key}: the audit sends it, playing the agent step by step"
    if config.get("include_window") is False:
        return "include_window: the audit judges the window, so it must be sent"
    body = {**substitute(config, CHECK_BUDGET), "format": "native", "messages": PROBE}
    try:
        read_plan_input(body, len(PROBE))
    except InvalidRequest as error:
        found = "; ".join(
            f"{'.'.join(map(str, field.loc[1:]))}: {one_line(field.msg)}" for field in error.errors
        )
        if substitute(config, CHECK_BUDGET) != config:
            found += f' ("{{B}}" read as {CHECK_BUDGET} to check)'
        return found
    return None


def quoted(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def one_line(text: str) -> str:
    return " ".join(text.split())
