"""Real image bytes of a chosen size, written by hand: PNG, GIF, WebP (`VP8 `, `VP8L`, `VP8X`) and
JPEG (baseline `SOF0`, progressive `SOF2`), for the benchmark's screenshots and the tests of
docs/rules.md#images.

Each is a well-formed file as far as its header goes (PNG and GIF are complete, decodable images;
the WebP and JPEG bodies after the header are filler), which is all the planner reads. Nothing
here needs an imaging library.
"""

from __future__ import annotations

import base64
import random
import struct
import zlib


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(width: int, height: int, noise_rows: int = 0, seed: int = 0) -> bytes:
    """An 8-bit greyscale PNG; its first `noise_rows` rows are random (so the file has the weight
    of a real screenshot), the rest black."""
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    rng = random.Random(seed)
    rows = []
    for row in range(height):
        line = rng.randbytes(width) if row < noise_rows else bytes(width)
        rows.append(b"\x00" + line)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", header)
        + png_chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + png_chunk(b"IEND", b"")
    )


def gif(width: int, height: int) -> bytes:
    """A one-colour GIF89a of the logical screen size given."""
    screen = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\x00\x00\x00" * 2
    image = b"\x2c" + struct.pack("<HHHHB", 0, 0, width, height, 0)
    return screen + image + b"\x02\x02\x44\x01\x00" + b"\x3b"


def riff(chunk: bytes, payload: bytes) -> bytes:
    body = b"WEBP" + chunk + struct.pack("<I", len(payload)) + payload
    return b"RIFF" + struct.pack("<I", len(body)) + body


def webp_lossy(width: int, height: int) -> bytes:
    """A `VP8 ` WebP: a key frame's tag, start code and 14-bit dimensions."""
    frame = b"\x9d\x01\x2a" + struct.pack("<HH", width & 0x3FFF, height & 0x3FFF)
    return riff(b"VP8 ", b"\x10\x02\x00" + frame + bytes(16))


def webp_lossless(width: int, height: int) -> bytes:
    """A `VP8L` WebP: the signature byte, then width−1 and height−1 in 14 bits each."""
    bits = (width - 1) | ((height - 1) << 14)
    return riff(b"VP8L", b"\x2f" + struct.pack("<I", bits) + bytes(8))


def webp_extended(width: int, height: int) -> bytes:
    """A `VP8X` WebP: flags, then the canvas width−1 and height−1 in 24 bits each."""
    canvas = (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return riff(b"VP8X", b"\x00\x00\x00\x00" + canvas) + webp_lossless(width, height)[12:]


def jpeg_segment(marker: int, data: bytes) -> bytes:
    return bytes((0xFF, marker)) + struct.pack(">H", len(data) + 2) + data


def jpeg(width: int, height: int, progressive: bool = False, metadata: int = 2) -> bytes:
    """A JPEG's headers: SOI, `metadata` APPn segments of 1,000 bytes (so the frame header lies
    past what a fixed prefix would hold), DQT, then SOF0 (or SOF2), then SOS and filler."""
    out = b"\xff\xd8" + jpeg_segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    for number in range(metadata):
        out += jpeg_segment(0xE1 + number % 14, bytes(1_000))
    out += jpeg_segment(0xDB, b"\x00" + bytes(64))
    frame = struct.pack(">BHHB", 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    out += jpeg_segment(0xC2 if progressive else 0xC0, frame)
    out += jpeg_segment(0xDA, b"\x03\x01\x00\x02\x11\x03\x11\x00\x3f\x00") + bytes(32)
    return out + b"\xff\xd9"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def data_url(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64,{b64(data)}"
