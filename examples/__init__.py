"""Runnable programs that put the planner in front of an agent framework's model calls
(`python -m examples.<name>` from the repository root, with a planner serving), through the hooks
the client ships (`cwp_client.hooks`)."""
