"""The audit: recorded agent runs replayed through the planner, and what each window kept.

A plan is valid by construction; whether it is good is measured here, outside the core: the
evidence measure (`evidence`), each provider's pairing rules for a window (`validity`), the peer
baselines other projects ship (`peers`), the replay and its figures (`replay`), and the
`cwp-audit` command with its reports (`cli`, `report`). docs/quality.md describes the figures.
"""
