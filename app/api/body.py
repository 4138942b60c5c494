"""Reading a request body: content type, strict JSON and nesting depth, within the deadline.

Bodies are parsed with orjson, which refuses exactly what docs/rules.md#validation calls "not JSON":
`NaN`, `Infinity`, numbers beyond a double's range and unpaired surrogate escapes are a 400, like
any syntax error. Size is enforced earlier, while the body streams in (`app.api.middleware`), so a
body over the limit is refused before it is read whole; and its bytes are counted in the budget for
bodies in flight (`app.api.budget`) before it is read, so the bodies held at once are bounded
whatever their number. The large-body slots, taken once a body is in, bound only what parsing and
planning multiply it into: a client trickling its body does not hold a slot meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
from fastapi import Request
from fastapi.responses import Response

from app.api.collector import collector_paused
from app.api.deadline import WorkSlots, run_with_deadline
from app.api.problems import ProblemError
from app.compiled import Unanswered
from app.errors import FieldError
from app.settings import Settings


def require_json_content_type(content_type: str | None) -> None:
    """415 unless the content type is `application/json` or a `+json` type."""
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    if media_type != "application/json" and not (
        media_type.startswith("application/") and media_type.endswith("+json")
    ):
        shown = media_type or "none"
        raise ProblemError(
            415,
            f"The body must be JSON sent as application/json; the content type was {shown}.",
            [FieldError(("header", "content-type"), "must be application/json", "media_type")],
        )


def parse_json(body: bytes | bytearray, max_depth: int) -> Any:
    """The body as a JSON value: 400 when it is not strict JSON, 422 when nested too deep."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise ProblemError(
            400,
            f"The body is not valid JSON: {error}.",
            [FieldError(("body",), str(error), "json_invalid")],
        ) from None
    depth = nesting_depth(value, max_depth)
    if depth > max_depth:
        raise ProblemError(
            422,
            f"The body nests deeper than {max_depth} levels.",
            [FieldError(("body",), f"nests deeper than {max_depth} levels", "too_deep")],
            kind="too-deep",
        )
    return value


def nesting_depth(value: Any, limit: int) -> int:
    """How deep a parsed JSON value nests (a scalar is 0), counted no further than `limit`+1.

    One walk a level at a time with exact type tests (orjson builds only plain dicts and lists);
    a level's list holds only the containers found, so scalars add nothing to memory. Its cost
    grows with the containers, never with what the strings hold: on the benchmark's bodies it
    takes 0.5 ms at 1,000 messages and 6 to 8 ms at 10,000 (`orjson.loads`: 0.6 and 18 to 20 ms),
    and a hostile body of a million empty objects 123 ms (its parse: 68 ms); a scan of the text
    would save 3 ms on 10,000 native messages but cost 20 ms on OpenAI's escaped arguments, so it
    is not kept beside the walk.
    """
    if type(value) is not dict and type(value) is not list:
        return 0
    depth = 0
    level = [value]
    while level and depth <= limit:
        depth += 1
        found: list[Any] = []
        keep = found.append
        for container in level:
            for item in container.values() if type(container) is dict else container:
                if type(item) is dict or type(item) is list:
                    keep(item)
        level = found
    return depth


@dataclass(frozen=True, slots=True)
class ReceivedBody:
    """A request body read whole, its content type checked, parsed only when worked on."""

    held: list[bytearray]  # the one body; `answer` lets go of it as soon as it is parsed
    settings: Settings
    slots: Callable[[], WorkSlots]

    async def answer(
        self,
        handler: Callable[[Any], Response],
        from_bytes: Callable[[bytearray], Response] | None = None,
    ) -> Response:
        """Parse the body and run `handler` on the JSON value, within the deadline.

        With `from_bytes`, the body's bytes go to it first, unparsed (the compiled reader,
        `app.compiled.request`); when it raises `Unanswered` the body is parsed and `handler`
        answers.

        A body under `inline_body_bytes` is worked on right here, on the event loop: a 50-message
        transcript is planned in well under a millisecond, while handing work to a thread and
        back costs 0.1 to 0.3 ms and, under load, waits for the GIL (measured: the bare endpoint
        served 1,000 requests a second through the thread and 1,500 inline). Such a body cannot
        run long enough for the deadline to matter. Anything larger is parsed in a worker, so it
        never stalls the loop, and a body of `large_body_bytes` or more also takes one of the
        app's large-body slots (`app.api.deadline`). The raw body is let go as soon as it is
        parsed: planning a 32 MiB body should not hold those 32 MiB as well as everything read
        from them.
        """
        settings, held = self.settings, self.held
        size = len(held[0])

        def work() -> Response:
            with collector_paused():
                received = held.pop()
                if from_bytes is not None:
                    try:
                        return from_bytes(received)
                    except Unanswered:
                        pass
                return handler(parse_json(received, settings.max_json_depth))

        if size < settings.inline_body_bytes:
            return work()
        slots = self.slots() if size >= settings.large_body_bytes else None
        return await run_with_deadline(settings.request_deadline_seconds, work, slots)


async def read_body(request: Request) -> bytearray:
    """The body, gathered into one buffer as it streams in.

    Not `request.body()`: that keeps the list of chunks and their join (twice the body) and caches
    the body on the request until the answer is sent. The buffer grows with what has arrived, not
    with what the request declares: made at its declared length at once, a `Content-Length` of
    32 MiB followed by one byte held 32 MiB for as long as the client waited, so a few hundred
    slow clients could exhaust a replica's memory (`docs/decisions/0032-slow-clients.md`).
    Growing costs the same (a 32 MiB body in 64 KiB chunks: 34 to 35 ms either way) and leaves at
    most an eighth of the body unused at the end, until it is parsed. orjson reads a bytearray as
    it is.
    """
    buffer = bytearray()
    async for chunk in request.stream():
        buffer += chunk
    return buffer
