"""`python -m examples.openai_agents [--planner URL]`: the stations agent, printing what each model
call was sent against the run's history."""

from __future__ import annotations

import asyncio

from examples.openai_agents.agent import run
from examples.stations import planner_url_from_args


def main() -> None:
    outcome = asyncio.run(run(planner_url_from_args(__doc__ or "")))
    for number, (plan, received) in enumerate(
        zip(outcome.planned.plans, outcome.model.received, strict=True), 1
    ):
        print(
            f"model call {number}: {len(received)} of {plan.stats.messages_before} items sent, "
            f"evicted {plan.evicted_messages}"
        )
    print(f"history: {len(outcome.result.to_input_list())} items")
    print(f"answer: {outcome.result.final_output}")


if __name__ == "__main__":
    main()
