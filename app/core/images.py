"""The tokens of an image (docs/rules.md#images): its size read from its own header, then the rule
of the provider the window goes to.

Decides: which image format the bytes are (by their signature, never by a declared MIME type),
the pixel size their header states (PNG `IHDR`, GIF logical screen, WebP `VP8`/`VP8L`/`VP8X`,
JPEG `SOFn`), and the tokens each provider's published rule gives that size (OpenAI's 512-pixel
tiles, Claude's pixels / 750, Gemini's fixed count per media resolution).

Only the header is ever decoded: an inline image is a base64 string of up to megabytes, and a
window of screenshots holds hundreds, so the reader decodes just the few bytes it looks at (a
base64 group of 4 characters is 3 bytes, so any byte range maps onto a slice of the string). A
JPEG's size sits after its metadata segments; the walk jumps from segment header to segment header
without decoding what lies between, and gives up after `MAX_JPEG_SEGMENTS`. Whatever the input,
the decoding is bounded by a constant, and a header that cannot be read is an unknown size, never an
error: the image then counts its rule's unknown-size figure.

The whole payload is checked to be base64 once a header gave a size (a payload corrupt past its
header counts the unknown size, as data that is not base64 does), without decoding it: a few
passes of C over the string (`is_base64`). Measured on a 1 MB image (1.33 M base64 characters):
1.2 ms as a bare base64 field, 2.1 ms inside a `data:` URL (whose payload is sliced off first),
where decoding it with `binascii`'s strict mode takes 4.8 ms.

Deliberately wrong: the checked payload is not decoded, so bytes past the header that are valid
base64 but no valid image still count the header's size; an image given by URL or file id counts
the unknown size, since nothing is fetched; a zero width or height is read as unknown
rather than as an empty image; and each rule is the one published for one generation of models
(GPT-4o/4.1 tiles, Claude up to 4.6, Gemini 3), which calibration (docs/rules.md#calibration)
corrects for the others.
"""

from __future__ import annotations

import binascii
import math
import struct
from typing import Literal, NamedTuple

# The provider whose rule counts an image: the format the window goes to decides it, not the
# image (docs/rules.md#images).
ImageRule = Literal["openai", "anthropic", "gemini"]


class Image(NamedTuple):
    """What counting needs of one image a core message carries.

    `detail` is OpenAI's `detail` or Gemini's `mediaResolution.level` as sent (None when absent).
    `data` holds the image's base64 bytes from offset `start` on (the caller's own string, a
    `data:` URL or a bare base64 field, never copied), or None when the image is given by URL or
    file id. The size is read only when tokens are counted, so a plan without a tokenizer never
    decodes a header. `required` is True for an image the provider requires to stay an image (a
    Responses `computer_call_output`'s screenshot): it is never replaced by a text
    (docs/rules.md#images). `beside` is True for an image a result's core message holds outside
    what its text is written in (a Bedrock `image` block next to a `toolResult`): written as a
    placeholder, the result keeps it, so it is still counted, and `clear.images` replaces it
    (docs/rules.md#images-and-thinking).
    """

    rule: ImageRule
    detail: str | None = None
    data: str | None = None
    start: int = 0
    required: bool = False
    beside: bool = False


# What an image replaced by a text holds (docs/rules.md#images): it starts with one of the
# service's own frames, so where a format makes it a core message of its own (a Bedrock text
# block) it is never taken for a person's request.
IMAGE_REMOVED_TEXT = "[image removed from the context window]"


# The unknown-size figures of each rule.
OPENAI_UNKNOWN = 765
ANTHROPIC_UNKNOWN = 1_600
GEMINI_DEFAULT = 1_120
OPENAI_LOW = 85
OPENAI_BASE = 85
OPENAI_TILE = 170
OPENAI_TILE_SIZE = 512
OPENAI_LONG_SIDE = 2_048
OPENAI_SHORT_SIDE = 768
ANTHROPIC_LONG_SIDE = 1_568
ANTHROPIC_MAX_PIXELS = 1_200_000
ANTHROPIC_PIXELS_PER_TOKEN = 750
GEMINI_LEVELS = {
    "MEDIA_RESOLUTION_LOW": 280,
    "MEDIA_RESOLUTION_MEDIUM": 560,
    "MEDIA_RESOLUTION_HIGH": 1_120,
    "MEDIA_RESOLUTION_ULTRA_HIGH": 2_240,
}

# A JPEG's SOF usually follows a handful of segments (APPn metadata, quantisation and Huffman
# tables); a file with more before its frame header counts as unknown rather than costing more.
MAX_JPEG_SEGMENTS = 64
# The longest `data:` URL prefix looked at for its comma (`data:image/png;base64,` and parameters).
MAX_DATA_URL_PREFIX = 256
# The bytes every signature and non-JPEG header fits in (a WebP `VP8X` canvas ends at byte 30).
HEAD_BYTES = 30
HEAD_CHARS = 4 * HEAD_BYTES // 3

BASE64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
GIF_SIGNATURES = (b"GIF87a", b"GIF89a")
# JPEG start-of-frame markers: C0–CF except DHT (C4), JPG (C8) and DAC (CC).
JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
# Markers that stand alone, with no length field: TEM and the restart markers.
JPEG_STANDALONE = frozenset({0x01, *range(0xD0, 0xD8)})
JPEG_SOS, JPEG_EOI = 0xDA, 0xD9


def data_url_start(url: str) -> int | None:
    """Where a base64 `data:` URL's payload starts; None for any other URL (an http URL, a data URL
    that is not base64), whose image counts as of unknown size."""
    if not url.startswith("data:"):
        return None
    comma = url.find(",", 5, MAX_DATA_URL_PREFIX)
    if comma < 0 or not url[5:comma].lower().endswith(";base64"):
        return None
    return comma + 1


def url_image(rule: ImageRule, url: object, detail: object = None) -> Image:
    """The image a URL names: inline when it is a base64 `data:` URL, else of unknown size."""
    shown = detail if isinstance(detail, str) else None
    start = data_url_start(url) if isinstance(url, str) else None
    if start is None:
        return Image(rule, shown)
    return Image(rule, shown, url if isinstance(url, str) else None, start)


def base64_image(rule: ImageRule, data: object, detail: object = None) -> Image:
    """The image a bare base64 field holds (unknown size when the field is not a string)."""
    shown = detail if isinstance(detail, str) else None
    return Image(rule, shown, data if isinstance(data, str) else None)


def decoded(data: str, start: int, offset: int, count: int) -> bytes | None:
    """Bytes `offset … offset+count−1` of the base64 payload `data[start:]`, decoding only the
    groups that hold them; None when the payload is shorter or those groups are not base64."""
    first = offset // 3
    last = -(-(offset + count) // 3)
    chunk = data[start + 4 * first : start + 4 * last]
    if not chunk:
        return None
    try:
        raw = binascii.a2b_base64(chunk, strict_mode=True)
    except (binascii.Error, ValueError):
        return None
    skip = offset - 3 * first
    found = raw[skip : skip + count]
    return found if len(found) == count else None


def inline_size(data: str, start: int = 0) -> tuple[int, int] | None:
    """(width, height) from the header of the base64 image `data[start:]`; None when no header of
    a known format can be read there, or when the payload is not base64 throughout."""
    if start < 0 or start >= len(data):
        return None
    head = decoded_head(data, start)
    if head is None:
        return None
    size = header_size(head)
    if size is None and head[:2] == b"\xff\xd8":
        size = jpeg_size(data, start)
    if size is None or size[0] <= 0 or size[1] <= 0 or not is_base64(data, start):
        return None
    return size


def is_base64(data: str, start: int = 0) -> bool:
    """Whether `data[start:]` is base64 as `binascii`'s strict mode reads it (the alphabet's
    characters in groups of four, at most two `=` at the end and nowhere else), checked without
    decoding: deleting the alphabet's bytes must leave nothing."""
    payload = data[start:] if start else data
    body = payload.rstrip("=")
    if len(payload) % 4 or len(payload) - len(body) > 2 or not body.isascii():
        return False
    return not body.encode("ascii").translate(None, BASE64_ALPHABET)


def decoded_head(data: str, start: int) -> bytes | None:
    """The first `HEAD_BYTES` bytes, or all of a shorter payload (one slice, one decode: this runs
    for every inline image the plan counts)."""
    try:
        return binascii.a2b_base64(data[start : start + HEAD_CHARS], strict_mode=True)
    except (binascii.Error, ValueError):
        return None


def header_size(head: bytes) -> tuple[int, int] | None:
    """The size a PNG, GIF or WebP header states, from its first bytes."""
    if head.startswith(PNG_SIGNATURE):
        if len(head) < 24 or head[12:16] != b"IHDR":
            return None
        width, height = struct.unpack_from(">II", head, 16)
        return width, height
    if head[:6] in GIF_SIGNATURES:
        if len(head) < 10:
            return None
        return int.from_bytes(head[6:8], "little"), int.from_bytes(head[8:10], "little")
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return webp_size(head)
    return None


def webp_size(head: bytes) -> tuple[int, int] | None:
    """The size of a WebP's first chunk: lossy `VP8 `, lossless `VP8L` or extended `VP8X`."""
    chunk = head[12:16]
    if chunk == b"VP8 ":
        if len(head) < 30 or head[23:26] != b"\x9d\x01\x2a":
            return None
        width = int.from_bytes(head[26:28], "little") & 0x3FFF
        height = int.from_bytes(head[28:30], "little") & 0x3FFF
        return width, height
    if chunk == b"VP8L":
        if len(head) < 25 or head[20] != 0x2F:
            return None
        bits = int.from_bytes(head[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        if len(head) < 30:
            return None
        return int.from_bytes(head[24:27], "little") + 1, int.from_bytes(head[27:30], "little") + 1
    return None


def jpeg_size(data: str, start: int) -> tuple[int, int] | None:
    """The size in a JPEG's first `SOFn` segment, found by walking segment headers (each a few
    decoded bytes) for at most `MAX_JPEG_SEGMENTS` steps."""
    position = 2
    for _ in range(MAX_JPEG_SEGMENTS):
        marker = decoded(data, start, position, 2)
        if marker is None or marker[0] != 0xFF:
            return None
        kind = marker[1]
        if kind == 0xFF:  # a fill byte before the marker
            position += 1
            continue
        if kind in JPEG_STANDALONE:
            position += 2
            continue
        if kind in (JPEG_SOS, JPEG_EOI):  # the image data began without a frame header
            return None
        if kind in JPEG_SOF:
            frame = decoded(data, start, position + 5, 4)
            if frame is None:
                return None
            return int.from_bytes(frame[2:4], "big"), int.from_bytes(frame[0:2], "big")
        length = decoded(data, start, position + 2, 2)
        if length is None:
            return None
        size = int.from_bytes(length, "big")
        if size < 2:
            return None
        position += 2 + size
    return None


def openai_tokens(size: tuple[int, int] | None, detail: str | None) -> int:
    """GPT-4o / GPT-4.1 tiles: 85 for `low`; else fit in 2048, shortest side to 768, then 85 + 170
    per 512-pixel tile; 765 when the size is unknown."""
    if detail == "low":
        return OPENAI_LOW
    if size is None:
        return OPENAI_UNKNOWN
    width, height = size
    longest = max(width, height)
    if longest > OPENAI_LONG_SIDE:
        width = width * OPENAI_LONG_SIDE // longest
        height = height * OPENAI_LONG_SIDE // longest
    shortest = min(width, height)
    if shortest > OPENAI_SHORT_SIDE:
        width = width * OPENAI_SHORT_SIDE // shortest
        height = height * OPENAI_SHORT_SIDE // shortest
    tiles = -(-width // OPENAI_TILE_SIZE) * -(-height // OPENAI_TILE_SIZE)
    return OPENAI_BASE + OPENAI_TILE * tiles


def anthropic_tokens(size: tuple[int, int] | None) -> int:
    """Claude: fit in 1568, then at most 1.2 megapixels, then pixels / 750 rounded up; 1,600 when
    the size is unknown."""
    if size is None:
        return ANTHROPIC_UNKNOWN
    width, height = size
    longest = max(width, height)
    if longest > ANTHROPIC_LONG_SIDE:
        width = width * ANTHROPIC_LONG_SIDE // longest
        height = height * ANTHROPIC_LONG_SIDE // longest
    if width * height > ANTHROPIC_MAX_PIXELS:
        # The published rule scales by a square root: double precision, as the rule states.
        factor = math.sqrt(ANTHROPIC_MAX_PIXELS / (width * height))
        width, height = math.floor(width * factor), math.floor(height * factor)
    return -(-(width * height) // ANTHROPIC_PIXELS_PER_TOKEN)


def gemini_tokens(level: str | None) -> int:
    """Gemini 3: a fixed count per `mediaResolution.level`, whatever the size."""
    return GEMINI_LEVELS.get(level, GEMINI_DEFAULT) if level is not None else GEMINI_DEFAULT


def image_size(image: Image) -> tuple[int, int] | None:
    """The image's size from its header, None when it is not inline or cannot be read."""
    return None if image.data is None else inline_size(image.data, image.start)


def image_tokens(image: Image) -> int:
    """The tokens of one image under its rule (docs/rules.md#images)."""
    if image.rule == "gemini":
        return gemini_tokens(image.detail)  # the size changes nothing: never decoded
    if image.rule == "openai":
        if image.detail == "low":
            return OPENAI_LOW
        return openai_tokens(image_size(image), image.detail)
    return anthropic_tokens(image_size(image))
