"""`python -m examples.pydantic_ai [--planner URL]`: the stations agent, printing what each model
request was sent against the run's history."""

from __future__ import annotations

import asyncio

from examples.pydantic_ai.agent import run
from examples.stations import planner_url_from_args


def main() -> None:
    outcome = asyncio.run(run(planner_url_from_args(__doc__ or "")))
    for number, plan in enumerate(outcome.planned.plans, 1):
        print(
            f"model request {number}: {len(plan.window)} of {plan.stats.messages_before} messages "
            f"sent, evicted {plan.evicted_messages}"
        )
    print(f"history: {len(outcome.result.all_messages())} messages")
    print(f"answer: {outcome.result.output}")


if __name__ == "__main__":
    main()
