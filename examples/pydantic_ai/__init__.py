"""The planner in front of a Pydantic AI agent's model requests (a capability)."""
