"""The planner in front of an agent framework's model calls, one module per framework.

- `cwp_client.hooks.openai_agents`: `PlannedInput`, a `RunConfig.call_model_input_filter` of the
  OpenAI Agents SDK (`pip install 'context-window-planner-client[openai-agents]'`);
- `cwp_client.hooks.langchain`: `PlannedWindow`, an agent middleware of LangChain v1
  (`pip install 'context-window-planner-client[langchain]'`);
- `cwp_client.hooks.pydantic_ai`: `PlannedWindow`, a capability of Pydantic AI
  (`pip install 'context-window-planner-client[pydantic-ai]'`).

Each hook changes what one model call is sent, never the framework's own history, and maps the
window back onto the framework's own messages: a kept message is the caller's object again, a
result the plan shaped (`collapse`, `cap`) is the caller's result with its new text, the drop
notice a new user message. By default (`summarize=True`) the framework's own model writes the
summaries the plans ask for (`docs/rules.md#summaries`), the summary request mapped onto the
framework's messages the same way, unless the session has a summarizer of its own; `summarize` may
instead be a function of the summary request that returns the text, or None for no summaries.

Nothing here imports a framework: `cwp_client` needs none of them, and a hook module imported
without its framework raises an `ImportError` naming the extra to install.
"""

DISTRIBUTION = "context-window-planner-client"


def missing_framework(module: str, framework: str, extra: str) -> str:
    """The message of the `ImportError` a hook module raises when its framework is absent."""
    return (
        f"{module} needs {framework}, which is not installed: pip install '{DISTRIBUTION}[{extra}]'"
    )
