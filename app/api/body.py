"""Reading a request body: content type, strict JSON, nesting depth, and model validation.

Bodies are parsed with orjson, which refuses exactly what the contract calls "not JSON": `NaN`,
`Infinity`, numbers beyond a double's range and unpaired surrogate escapes are a 400, like any
syntax error. Size is enforced earlier, while the body streams in (`app.api.middleware`), so a body
over the limit is refused before it is read whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

import orjson
from fastapi import Request
from fastapi.responses import Response
from pydantic import BaseModel, ValidationError

from app.api.collector import collector_paused
from app.api.deadline import WorkSlots, run_with_deadline
from app.api.problems import ProblemError, pydantic_errors
from app.errors import FieldError, InvalidRequest

ModelT = TypeVar("ModelT", bound=BaseModel)


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
    depth = nesting_depth(body, value, max_depth)
    if depth > max_depth:
        raise ProblemError(
            422,
            f"The body nests deeper than {max_depth} levels.",
            [FieldError(("body",), f"nests deeper than {max_depth} levels", "too_deep")],
            kind="too-deep",
        )
    return value


# A body with a backslash is walked only while it holds fewer containers than one per this many
# bytes (`nesting_depth`).
BYTES_PER_WALKED_CONTAINER = 32


def nesting_depth(body: bytes | bytearray, value: Any, limit: int) -> int:
    """How deep `value`, parsed from `body`, nests (a scalar is 0), counted no further than
    `limit`+1.

    Two ways to one answer, each the cheaper where it is used. Reading the text costs the same per
    byte whatever the document holds, until it has escapes to resolve: a backslash can hide a
    quote, and resolving escapes costs several times as much as the rest of the reading. Walking
    the values costs per container, whatever its strings hold. So a body with a backslash (OpenAI's
    arguments, any text with a newline) is walked, 10,000 OpenAI messages in 19 ms instead of 30
    ms read; but only while it holds fewer than one container per `BYTES_PER_WALKED_CONTAINER`
    bytes (a transcript holds one per 190 to 250), so a body of a million empty objects and one
    escape is still read, in 37 ms rather than walked in about 200 ms.
    """
    if b"\\" in body:
        walked = walked_depth(value, limit, len(body) // BYTES_PER_WALKED_CONTAINER)
        if walked is not None:
            return walked
    return text_depth(body, limit)


# Everything but the bytes that shape a JSON document: quotes, brackets and separators.
_NOT_STRUCTURE = bytes(byte for byte in range(256) if byte not in b'"[]{},:')
# The same, keeping also backslashes and every byte that can follow one in an escape.
_NOT_STRUCTURE_OR_ESCAPE = bytes(byte for byte in range(256) if byte not in b'"[]{},:\\/bfnrtu')
_STRING = re.compile(rb'"[^"]*"')
_ONE_BRACKET_KIND = bytes.maketrans(b"{}", b"[]")
# A bytearray is shrunk this many bytes at a time (`without`).
SLICE_BYTES = 256 * 1024


def without(body: bytes | bytearray, delete: bytes) -> bytes:
    """`body` without any byte of `delete`, as bytes.

    `bytes.translate` deletes at about one and a half times the speed of `bytearray.translate`
    (a 0.66 MB body: 0.30 against 0.46 ms), and a bytes result keeps the later replacements on
    bytes, which are faster too; so a body read into a bytearray is shrunk a slice at a time
    through bytes copies, which costs a slice of memory rather than a second body.
    """
    if type(body) is bytes:
        return body.translate(None, delete)
    with memoryview(body) as view:
        return b"".join(
            [
                bytes(view[start : start + SLICE_BYTES]).translate(None, delete)
                for start in range(0, len(view), SLICE_BYTES)
            ]
        )


def text_depth(body: bytes | bytearray, limit: int) -> int:
    """`nesting_depth` read from the text of a body that parsed, with whole-buffer operations.

    Escaped quotes go first, then every byte but quotes, brackets and separators. A string holding
    no bracket is now `""` (two strings are never adjacent: a separator or bracket stands between
    them), so those go with one replace and the rare rest with a pattern. What is left is the
    bracket skeleton; each pass that deletes its innermost `[]` pairs peels one level.
    """
    text = body
    if b"\\" in text:
        # Only two escapes could leave structure behind: an escaped quote, and an escaped
        # backslash that would make the next quote look escaped. Read left to right, as a parser
        # does, pairs of backslashes go first; every other escape dies with the backslash below.
        # The text is shrunk first to structure, backslashes and every byte that can follow one,
        # so each escape stays whole and the replacements scan a quarter of the body.
        text = without(text, _NOT_STRUCTURE_OR_ESCAPE)
        text = text.replace(b"\\\\", b"").replace(b'\\"', b"")
    skeleton = without(text, _NOT_STRUCTURE).replace(b'""', b"")
    if b'"' in skeleton:
        skeleton = _STRING.sub(b"", skeleton)
    skeleton = skeleton.translate(_ONE_BRACKET_KIND, b",:")
    depth = 0
    while skeleton and depth <= limit:
        skeleton = skeleton.replace(b"[]", b"")
        depth += 1
    return depth


def walked_depth(value: Any, limit: int, most_containers: int) -> int | None:
    """`nesting_depth` by walking the values a level at a time with exact type tests (orjson
    builds only plain dicts and lists), or None once it has met more than `most_containers`.

    A level's list holds only the containers found, so scalars add nothing to memory, and the walk
    stops at the first container past the allowance.
    """
    if type(value) is not dict and type(value) is not list:
        return 0
    depth = 0
    level = [value]
    allowance = most_containers - 1
    while level and depth <= limit:
        depth += 1
        found: list[Any] = []
        keep = found.append
        for container in level:
            for item in container.values() if type(container) is dict else container:
                if type(item) is dict or type(item) is list:
                    keep(item)
                    if len(found) > allowance:
                        return None
        allowance -= len(found)
        level = found
    return depth


def require_object(raw: Any) -> dict[str, Any]:
    """The body as a JSON object; any other JSON value is refused before anything is read."""
    if not isinstance(raw, dict):
        raise InvalidRequest([FieldError(("body",), "the body must be a JSON object", "dict_type")])
    return raw


def validate_model(model: type[ModelT], value: Any, errors: list[FieldError]) -> ModelT | None:
    """`model` validated from `value`, or None with its errors appended (located under body)."""
    try:
        return model.model_validate(value)
    except ValidationError as error:
        errors.extend(pydantic_errors(error.errors(include_url=False), ("body",)))
        return None


def raise_if_any(errors: list[FieldError]) -> None:
    if errors:
        raise InvalidRequest(errors)


async def handle_json_body(request: Request, handler: Callable[[Any], Response]) -> Response:
    """Read the body, then parse it and run `handler` on the JSON value within the deadline.

    A body under `inline_body_bytes` is worked on right here, on the event loop: a 50-message
    transcript is planned in well under a millisecond, while handing work to a thread and back
    costs 0.1 to 0.3 ms and, under load, waits for the GIL (measured: the bare endpoint served
    1,000 requests a second through the thread and 1,500 inline). Such a body cannot run long
    enough for the deadline to matter. Anything larger is parsed in a worker, so it never stalls
    the loop, and a body of `large_body_bytes` or more also takes one of the app's large-body
    slots (`app.api.deadline`).
    The raw body is let go as soon as it is parsed: planning a 32 MiB body should not hold those
    32 MiB as well as everything read from them.
    """
    require_json_content_type(request.headers.get("content-type"))
    held = [await read_body(request)]
    size = len(held[0])
    settings = request.app.state.settings

    def work() -> Response:
        with collector_paused():
            return handler(parse_json(held.pop(), settings.max_json_depth))

    if size < settings.inline_body_bytes:
        return work()
    slots = large_body_slots(request) if size >= settings.large_body_bytes else None
    return await run_with_deadline(settings.request_deadline_seconds, work, slots)


async def read_body(request: Request) -> bytearray:
    """The body, gathered into one buffer as it streams in.

    Not `request.body()`: that keeps the list of chunks and their join (twice the body) and caches
    the body on the request until the answer is sent. When the length is declared the buffer is
    made that size at once, so it is not grown (and over-allocated) chunk by chunk. orjson reads a
    bytearray as it is.
    """
    declared = request.headers.get("content-length", "")
    size = int(declared) if declared.isdigit() else 0
    buffer = bytearray(size)
    view = memoryview(buffer)
    filled = 0
    beyond = bytearray()  # what arrives past the declared length, should a server pass it on
    async for chunk in request.stream():
        end = filled + len(chunk)
        if not beyond and end <= size:
            view[filled:end] = chunk
            filled = end
        else:
            beyond += chunk
    view.release()
    del buffer[filled:]
    if beyond:
        buffer += beyond
    return buffer


def large_body_slots(request: Request) -> WorkSlots:
    """The app's slots for work on large bodies, made on first use."""
    state = request.app.state
    slots: WorkSlots | None = getattr(state, "large_body_slots", None)
    if slots is None:
        slots = state.large_body_slots = WorkSlots(state.settings.large_body_slots)
    return slots
