"""One agent run's plans, with the bookkeeping the service leaves to the caller.

The stand-down (`docs/rules.md#the-stand-down`) reads the records of the run's two previous engaged
plans, so a caller must send them back; `PlannerSession` keeps them (the last two non-null
`record`s, oldest first) and sends them as `prior_records`.

It also numbers the iterations: the plan precedes one model request, so each plan that succeeds
is one iteration of the agent. The first plan is sent with `iteration` 1 (or the number given),
and each successful plan moves the count on by one, whether or not it engaged; a plan that raised
does not, since the model request it was for was not made with it. An `iteration` or
`prior_records` passed to one `plan()` call overrides the session's for that call, and the count
continues from the given iteration. `reset()` starts a new run.

A session belongs to one run, whose plans come one after another; it is not shared between
concurrent runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cwp_client.planner import AsyncPlanner, Plan, Planner

KEPT_RECORDS = 2


class _Bookkeeping:
    def __init__(
        self,
        *,
        iteration: int = 1,
        prior_records: Sequence[Mapping[str, Any]] = (),
        **defaults: Any,
    ) -> None:
        if iteration < 1:
            raise ValueError("iteration starts at 1")
        self.first_iteration = iteration
        self.iteration = iteration
        self.records: list[dict[str, Any]] = [dict(r) for r in prior_records][-KEPT_RECORDS:]
        self.defaults = defaults

    def _options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {
            **self.defaults,
            "iteration": self.iteration,
            "prior_records": list(self.records),
            **options,
        }

    def _file(self, sent: Mapping[str, Any], plan: Plan) -> None:
        if plan.record is not None:
            self.records = [*self.records, plan.record][-KEPT_RECORDS:]
        self.iteration = int(sent["iteration"]) + 1

    def reset(self) -> None:
        """Start a new run: iteration back to its first number, no records."""
        self.iteration = self.first_iteration
        self.records = []


class PlannerSession(_Bookkeeping):
    """Plans of one run through a `Planner`; `defaults` (e.g. `format`, `strategy`, `system`)
    go with every plan, under the options of the call."""

    def __init__(self, planner: Planner, **defaults: Any) -> None:
        super().__init__(**defaults)
        self.planner = planner

    def plan(self, messages: Sequence[Any], **options: Any) -> Plan:
        sent = self._options(options)
        plan = self.planner.plan(messages, **sent)
        self._file(sent, plan)
        return plan


class AsyncPlannerSession(_Bookkeeping):
    """The asynchronous `PlannerSession`."""

    def __init__(self, planner: AsyncPlanner, **defaults: Any) -> None:
        super().__init__(**defaults)
        self.planner = planner

    async def plan(self, messages: Sequence[Any], **options: Any) -> Plan:
        sent = self._options(options)
        plan = await self.planner.plan(messages, **sent)
        self._file(sent, plan)
        return plan
