"""The planner in front of a LangChain agent's model calls (an `AgentMiddleware`)."""
