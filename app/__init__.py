"""Context Window Planner: decides what stays in an LLM agent's context window."""

__version__ = "0.1.0"
