"""The planner in front of a LangChain agent's model calls (the `AgentMiddleware` of
`cwp_client.hooks.langchain`)."""
