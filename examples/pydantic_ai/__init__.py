"""The planner in front of a Pydantic AI agent's model requests (the capability of
`cwp_client.hooks.pydantic_ai`)."""
