"""The planner in front of the OpenAI Agents SDK's model calls
(`RunConfig.call_model_input_filter`)."""
