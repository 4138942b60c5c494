"""The audit's bundled samples, converted from each agent's own recorded log into a dialect.

`python -m bench.convert_samples SOURCE_DIR` reads the original files (named as in
`app/audit/samples/SOURCES.md`, which says where each comes from) and writes the samples into
`app/audit/samples/`. Each conversion keeps what the model was sent and what it answered, in
order, and nothing else; what it leaves out or invents is said at each function, and again in
SOURCES.md. The conversion is a script rather than a hand edit so that anyone can repeat it from
the public originals and get the same bytes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "app" / "audit" / "samples"


def swe_agent(traj: dict[str, Any]) -> dict[str, Any]:
    """A SWE-agent trajectory (`.traj`) as OpenAI Chat Completions messages.

    SWE-agent's run predates function calling: the model wrote its command in a fenced block and
    the next user message carried the output. The trajectory records each step's `thought`,
    `action` (the command) and `observation` (the output) separately, so each step becomes an
    assistant message with the thought as text and the command as one `bash` call, answered by a
    `tool` message with the observation. The call ids (`call_NN`) are written here; the system
    prompt, the demonstration and the issue are the history's own opening messages.
    """
    history = traj["history"]
    opening: list[dict[str, Any]] = []
    for message in history:
        if message["role"] == "assistant":
            break
        opening.append({"role": message["role"], "content": message["content"]})
    messages = list(opening)
    for index, step in enumerate(traj["trajectory"], start=1):
        call_id = f"call_{index:02d}"
        arguments = json.dumps({"command": step["action"].rstrip("\n")})
        messages.append(
            {
                "role": "assistant",
                "content": step["thought"].strip(),
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "bash", "arguments": arguments},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": step["observation"]})
    return {"format": "openai", "messages": messages}


def claude_block(block: dict[str, Any]) -> dict[str, Any] | None:
    """A content block with the keys the Messages API takes; None for a thinking block, whose
    signature the published log redacted (a provider refuses a thinking block without it)."""
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block["text"]}
    if kind == "tool_use":
        return {
            "type": "tool_use",
            "id": block["id"],
            "name": block["name"],
            "input": block["input"],
        }
    if kind == "tool_result":
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": block["tool_use_id"],
            "content": block.get("content", ""),
        }
        if block.get("is_error"):
            result["is_error"] = True
        return result
    return None


def claude_code(lines: list[dict[str, Any]], max_chars: int | None = None) -> dict[str, Any]:
    """A Claude Code session log (JSONL) as Anthropic Messages.

    Claude Code writes one line per content block of a response (lines of one response share
    `message.id`) and one line per tool result; the lines of one role in a row are one message of
    the Messages API, so they are joined, a user message's results first. Lines other than `user`
    and `assistant` (progress, hooks, snapshots, queue operations) were never sent to the model
    and are left out, and so are thinking blocks (see `claude_block`). With `max_chars`, the
    transcript is cut after the last complete tool-result message that keeps the file under it.
    """
    messages: list[dict[str, Any]] = []
    for line in lines:
        if line.get("type") not in ("user", "assistant") or line.get("isMeta"):
            continue
        message = line["message"]
        content = message["content"]
        blocks = (
            [{"type": "text", "text": content}]
            if isinstance(content, str)
            else [b for b in (claude_block(block) for block in content) if b is not None]
        )
        if not blocks:
            continue
        role = message["role"]
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})
    for message in messages:
        if message["role"] == "user":  # the Messages API wants a message's results first
            message["content"].sort(key=lambda block: block["type"] != "tool_result")
    if max_chars is not None:
        cut = len(messages)
        while len(json.dumps(messages[:cut])) > max_chars or not ends_on_results(messages[:cut]):
            cut -= 1
        messages = messages[:cut]
    return {"format": "anthropic", "messages": messages}


def ends_on_results(messages: list[dict[str, Any]]) -> bool:
    last = messages[-1]
    return last["role"] == "user" and any(b["type"] == "tool_result" for b in last["content"])


def openhands(events: list[dict[str, Any]]) -> dict[str, Any]:
    """An OpenHands event trajectory as Bedrock Converse messages.

    The run's model was Claude (its tool ids are Anthropic's); OpenHands records, with each action,
    the model's response (`tool_call_metadata.model_response`), whose calls' arguments are taken as
    sent, and with each observation the text the tool returned. The user's message opens; each
    action is an assistant message (its `thought` as text, the call as `toolUse`) and each
    observation a user message with the `toolResult`; the agent's closing message is an assistant
    text. Environment events (agent state changes) were never sent to the model and are left out.
    """
    messages: list[dict[str, Any]] = []
    for event in events:
        source = event.get("source")
        metadata = event.get("tool_call_metadata")
        if event.get("action") == "message" and source in ("user", "agent"):
            role = "user" if source == "user" else "assistant"
            messages.append({"role": role, "content": [{"text": event["args"]["content"]}]})
        elif "action" in event and metadata:
            call = next(
                call
                for call in metadata["model_response"]["choices"][0]["message"]["tool_calls"]
                if call["id"] == metadata["tool_call_id"]
            )
            content: list[dict[str, Any]] = []
            thought = event["args"].get("thought")
            if thought:
                content.append({"text": thought})
            content.append(
                {
                    "toolUse": {
                        "toolUseId": call["id"],
                        "name": call["function"]["name"],
                        "input": json.loads(call["function"]["arguments"]),
                    }
                }
            )
            messages.append({"role": "assistant", "content": content})
        elif "observation" in event and metadata:
            text = event.get("content") or event.get("message") or ""
            result = {"toolUseId": metadata["tool_call_id"], "content": [{"text": text}]}
            messages.append({"role": "user", "content": [{"toolResult": result}]})
    return {"format": "bedrock", "messages": messages}


def write(name: str, value: dict[str, Any]) -> None:
    path = OUT / name
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{path}: {len(value['messages'])} messages, {path.stat().st_size} bytes")


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def main(source: Path) -> None:
    write(
        "swe-agent-pydicom-1458.json",
        swe_agent(json.loads((source / "pydicom__pydicom-1458.traj").read_text(encoding="utf-8"))),
    )
    write(
        "claude-code-subagent.json",
        claude_code(jsonl(source / "agent-a7be2f0.jsonl")),
    )
    write(
        "claude-code-session.json",
        claude_code(jsonl(source / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"), 250_000),
    )
    write(
        "openhands-todo-app.json",
        openhands(json.loads((source / "basic_gui_mode.json").read_text(encoding="utf-8"))),
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
