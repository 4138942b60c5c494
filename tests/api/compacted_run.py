"""An Anthropic run compacted mid-way, shared by the fuzz and schemathesis plan bodies: a summary
`compaction` block, then a failed one, with framework frames after the summary and a tag the
`frame_tags` option can name, so every frame and compaction option reaches a transcript the planner
reads; its result carries a screenshot, counted as an image and cleared with the result."""

from __future__ import annotations

from typing import Any

# A 2×1 PNG in the result: its size, from its header, is what its tokens are counted from.
THERMAL_IMAGE = {
    "type": "image",
    "source": {
        "type": "base64",
        "media_type": "image/png",
        "data": "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8"
        "AAAAASUVORK5CYII=",
    },
}
COMPACTED_RUN: list[Any] = [
    {"role": "user", "content": "Audit every rack."},
    {
        "role": "assistant",
        "content": [
            {"type": "compaction", "content": "Racks a and c were measured."},
            {"type": "tool_use", "id": "b", "name": "look", "input": {"rack": "b"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "b",
                "content": [{"type": "text", "text": "rack b: 41C"}, THERMAL_IMAGE],
            },
            {"type": "text", "text": "<system-reminder>Todo list empty.</system-reminder>"},
        ],
    },
    {
        "role": "assistant",
        "content": [
            {"type": "compaction", "content": None},
            {"type": "text", "text": "Rack b is the hottest."},
        ],
    },
    {"role": "user", "content": "<lab-note>shift change</lab-note>"},
]
