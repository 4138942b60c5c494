"""`python -m examples.langchain [--planner URL]`: the stations agent, printing what each model
call was sent against the agent's state."""

from __future__ import annotations

from examples.langchain.agent import run
from examples.stations import planner_url_from_args


def main() -> None:
    outcome = run(planner_url_from_args(__doc__ or ""))
    for number, plan in enumerate(outcome.planned.plans, 1):
        print(
            f"model call {number}: {len(plan.window)} of {plan.stats.messages_before} messages "
            f"sent, evicted {plan.evicted_messages}"
        )
    print(f"state: {len(outcome.state['messages'])} messages")
    print(f"answer: {outcome.state['messages'][-1].content}")


if __name__ == "__main__":
    main()
