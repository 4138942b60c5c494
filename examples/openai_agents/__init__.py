"""The planner in front of the OpenAI Agents SDK's model calls (the
`RunConfig.call_model_input_filter` of `cwp_client.hooks.openai_agents`)."""
