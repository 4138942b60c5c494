"""Image tokens (docs/rules.md#images): the header readers on real PNG, GIF, WebP and JPEG bytes of
known sizes, each rule of the table, what counts when the size is unknown, and the readers under
hostile and truncated input (never an error, bounded work)."""

from __future__ import annotations

import base64
import binascii
import math
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import app.core.images as images
from app.core.images import (
    HEAD_CHARS,
    IMAGE_REMOVED_TEXT,
    MAX_JPEG_SEGMENTS,
    Image,
    anthropic_tokens,
    base64_image,
    data_url_start,
    image_tokens,
    inline_size,
    is_base64,
    openai_tokens,
    url_image,
)
from app.core.messages import Message
from app.core.tokens import estimate_tokens, message_tokens
from bench.images import (
    b64,
    data_url,
    gif,
    jpeg,
    png,
    webp_extended,
    webp_lossless,
    webp_lossy,
)

MAKERS = {
    "png": png,
    "gif": gif,
    "webp-vp8": webp_lossy,
    "webp-vp8l": webp_lossless,
    "webp-vp8x": webp_extended,
    "jpeg-sof0": jpeg,
    "jpeg-sof2": lambda w, h: jpeg(w, h, progressive=True),
}
SIZES = [(1, 1), (7, 9), (300, 200), (1280, 800), (1920, 1080), (4000, 3000), (16383, 2)]


@pytest.mark.parametrize("kind", sorted(MAKERS))
@pytest.mark.parametrize("size", SIZES)
def test_the_header_gives_the_size(kind: str, size: tuple[int, int]) -> None:
    assert inline_size(b64(MAKERS[kind](*size))) == size


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_a_data_url_is_read_from_its_payload(kind: str) -> None:
    url = data_url(MAKERS[kind](640, 480), "image/png")  # the declared type is not trusted
    start = data_url_start(url)
    assert start is not None and url[start - 1] == ","
    assert inline_size(url, start) == (640, 480)
    assert url_image("openai", url).data is url  # the caller's string, not a copy


def test_a_jpeg_frame_header_far_from_the_start_is_found() -> None:
    # 30 APP segments of 1,000 bytes: the SOF is 30 KB in, past any fixed prefix.
    assert inline_size(b64(jpeg(1024, 768, metadata=30))) == (1024, 768)


def test_a_jpeg_with_more_segments_than_the_walk_allows_is_unknown() -> None:
    assert inline_size(b64(jpeg(1024, 768, metadata=MAX_JPEG_SEGMENTS))) is None


@pytest.mark.parametrize(
    "data",
    [
        "",
        "not base64!",
        "iVBORw0KGgo",  # the PNG signature, cut short
        b64(png(10, 10))[:30],
        b64(png(0, 10)),  # a zero dimension is no image
        b64(b"GIF89a"),
        b64(b"RIFF\x00\x00\x00\x00WEBPVP8 " + bytes(20)),  # no key-frame start code
        b64(b"\xff\xd8\xff\xda" + bytes(40)),  # scan data before any frame header
        b64(b"\xff\xd8" + b"\xff" * 5_000),  # fill bytes only
        b64(b"\xff\xd8\xff\xe0\x00\x01"),  # a segment length under 2
        b64(bytes(100)),
        "=" * 40,
        b64(png(10, 10)).replace("A", "*"),
    ],
)
def test_unreadable_data_is_an_unknown_size(data: str) -> None:
    assert inline_size(data) is None
    assert image_tokens(base64_image("anthropic", data)) == 1_600
    assert image_tokens(base64_image("openai", data)) == 765


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda data: data[:-8] + "!!!!" + data[-4:],  # a character outside the alphabet
        lambda data: data[:-8] + "====" + data[-4:],  # padding before the end
        lambda data: data + "A",  # not groups of four
        lambda data: data + "\n",  # white space, which the strict reading refuses
        lambda data: data[: len(data) // 2] + "é" + data[len(data) // 2 + 1 :],
    ],
)
def test_a_payload_corrupt_past_its_header_counts_the_unknown_size(corrupt: Any) -> None:
    data = b64(png(1280, 800) + bytes(3_000))
    assert inline_size(data) == (1280, 800)
    broken = corrupt(data)
    assert inline_size(broken) is None
    assert image_tokens(base64_image("anthropic", broken)) == 1_600
    url = "data:image/png;base64," + broken
    assert image_tokens(url_image("openai", url)) == 765


@pytest.mark.parametrize(
    ("data", "valid"),
    [
        ("", True),
        ("QQ==", True),
        ("QUI=", True),
        ("QUJD", True),
        ("Q===", False),
        ("QQ=", False),
        ("Q=Q=", False),
        ("QUJD\n", False),
        ("QU JD", False),
        ("QUJDé===", False),
    ],
)
def test_base64_is_checked_as_the_strict_decoder_reads_it(data: str, valid: bool) -> None:
    assert is_base64(data) is valid
    try:
        binascii.a2b_base64(data, strict_mode=True)
        decodes = True
    except (binascii.Error, ValueError):
        decodes = False
    assert decodes is valid


@given(st.binary(max_size=64), st.text(alphabet="AQgw+/=\n é", max_size=12))
def test_the_check_agrees_with_the_strict_decoder(raw: bytes, noise: str) -> None:
    for data in (base64.b64encode(raw).decode(), base64.b64encode(raw).decode() + noise, noise):
        try:
            binascii.a2b_base64(data, strict_mode=True)
            decodes = True
        except (binascii.Error, ValueError):
            decodes = False
        assert is_base64(data) is decodes, data


def test_an_image_is_not_required_unless_said_and_the_replacement_is_a_service_frame() -> None:
    assert Image("openai").required is False
    assert Image("openai", required=True).required is True
    assert IMAGE_REMOVED_TEXT == "[image removed from the context window]"


# ---- the rules of the table ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "detail", "tokens"),
    [
        # 1280×800: shortest side 800 > 768 → 1228×768 → 3 × 2 tiles.
        ((1280, 800), None, 85 + 170 * 6),
        ((1280, 800), "auto", 85 + 170 * 6),
        ((1280, 800), "high", 85 + 170 * 6),
        # 4096×2048: longest side to 2048 → 2048×1024, shortest to 768 → 1536×768 → 3 × 2 tiles.
        ((4096, 2048), None, 85 + 170 * 6),
        ((512, 512), None, 85 + 170),
        ((513, 512), None, 85 + 170 * 2),
        ((300, 200), None, 85 + 170),
        # 2049×10 → 2048×9: 4 × 1 tiles.
        ((2049, 10), None, 85 + 170 * 4),
        ((4000, 3000), "low", 85),
        (None, "low", 85),
        (None, None, 765),
        (None, "high", 765),
    ],
)
def test_the_openai_rule(size: tuple[int, int] | None, detail: str | None, tokens: int) -> None:
    assert openai_tokens(size, detail) == tokens


@pytest.mark.parametrize(
    ("size", "tokens"),
    [
        ((1280, 800), 1_366),  # 1,024,000 pixels / 750, rounded up
        ((200, 200), 54),
        ((750, 1), 1),
        # 1920×1080 → 1568×882 (longest side), 1,382,976 pixels > 1.2 M → × 0.93150… → 1460×821.
        ((1920, 1080), 1_599),
        ((1568, 1568), 1_599),  # → 1095×1095
        (None, 1_600),
    ],
)
def test_the_anthropic_rule(size: tuple[int, int] | None, tokens: int) -> None:
    assert anthropic_tokens(size) == tokens


def test_the_anthropic_square_root_is_double_precision() -> None:
    factor = math.sqrt(1_200_000 / (1568 * 1568))
    side = math.floor(1568 * factor)
    assert side == 1095
    assert anthropic_tokens((1568, 1568)) == -(-(side * side) // 750)


@pytest.mark.parametrize(
    ("level", "tokens"),
    [
        ("MEDIA_RESOLUTION_LOW", 280),
        ("MEDIA_RESOLUTION_MEDIUM", 560),
        ("MEDIA_RESOLUTION_HIGH", 1_120),
        ("MEDIA_RESOLUTION_ULTRA_HIGH", 2_240),
        (None, 1_120),
        ("MEDIA_RESOLUTION_UNSPECIFIED", 1_120),
        ("something else", 1_120),
    ],
)
def test_the_gemini_rule_ignores_the_size(level: str | None, tokens: int) -> None:
    for data in (None, b64(png(4000, 3000)), b64(png(8, 8))):
        assert image_tokens(Image("gemini", level, data)) == tokens


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_each_rule_counts_the_size_read_from_each_format(kind: str) -> None:
    data = b64(MAKERS[kind](1920, 1080))
    assert image_tokens(base64_image("openai", data)) == openai_tokens((1920, 1080), None)
    assert image_tokens(base64_image("anthropic", data)) == 1_599
    url = data_url(MAKERS[kind](1920, 1080))
    assert image_tokens(url_image("openai", url, "high")) == openai_tokens((1920, 1080), "high")
    assert image_tokens(url_image("openai", url, "low")) == 85


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/screen.png",
        "data:image/png,%89PNG",  # a data URL that is not base64
        "data:image/png;base64",  # no payload
        None,
        42,
    ],
)
def test_an_image_by_url_counts_the_unknown_size(url: Any) -> None:
    assert image_tokens(url_image("openai", url)) == 765
    assert image_tokens(url_image("anthropic", url)) == 1_600


def test_an_image_adds_tokens_never_characters() -> None:
    image = base64_image("anthropic", b64(png(1280, 800)))
    plain = Message("user", "look")
    with_image = plain._replace(images=(image, image))
    assert (
        message_tokens(with_image, estimate_tokens)
        == message_tokens(plain, estimate_tokens) + 2 * 1_366
    )
    assert len(with_image.content) == len(plain.content)


# ---- hostile input ------------------------------------------------------------------------------


def counted_decoding(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every string the readers hand to the base64 decoder."""
    lengths: list[int] = []

    def a2b_base64(data: Any, *, strict_mode: bool = False) -> bytes:
        lengths.append(len(data))
        return binascii.a2b_base64(data, strict_mode=strict_mode)

    monkeypatch.setattr(
        images, "binascii", SimpleNamespace(a2b_base64=a2b_base64, Error=binascii.Error)
    )
    return lengths


# What a read may decode: the head, then per JPEG step a marker and a length or a frame header
# (a fill byte is a step of one decode), each a slice of a few base64 groups.
MAX_DECODES = 1 + 2 * MAX_JPEG_SEGMENTS
MAX_DECODED_CHARS = HEAD_CHARS


def assert_bounded(data: str, lengths: list[int]) -> None:
    assert len(lengths) <= MAX_DECODES, (len(lengths), data[:60])
    assert all(length <= MAX_DECODED_CHARS for length in lengths)


HEADERS = st.sampled_from(
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR",
        b"GIF89a",
        b"RIFF\x00\x00\x00\x00WEBPVP8 ",
        b"RIFF\x00\x00\x00\x00WEBPVP8L",
        b"RIFF\x00\x00\x00\x00WEBPVP8X",
        b"\xff\xd8",
        b"\xff\xd8\xff\xe1",
        b"",
    ]
)


@given(header=HEADERS, tail=st.binary(max_size=300))
def test_hostile_headers_never_raise_and_stay_bounded(header: bytes, tail: bytes) -> None:
    with pytest.MonkeyPatch.context() as patch:
        lengths = counted_decoding(patch)
        data = base64.b64encode(header + tail).decode()
        size = inline_size(data)
        assert size is None or (size[0] > 0 and size[1] > 0)
        assert_bounded(data, lengths)


@given(
    kind=st.sampled_from(sorted(MAKERS)),
    width=st.integers(1, 16383),
    height=st.integers(1, 16383),
    cut=st.integers(0, 80),
)
def test_truncated_images_are_unknown_or_their_size(
    kind: str, width: int, height: int, cut: int
) -> None:
    data = b64(MAKERS[kind](width, height))
    assert inline_size(data[:cut]) in (None, (width, height))
    assert inline_size(data[: cut * 4]) in (None, (width, height))


@given(text=st.text(max_size=200), start=st.integers(-5, 250))
def test_any_text_at_any_offset_never_raises(text: str, start: int) -> None:
    with pytest.MonkeyPatch.context() as patch:
        lengths = counted_decoding(patch)
        size = inline_size(text, start)
        assert size is None or (size[0] > 0 and size[1] > 0)
        assert_bounded(text, lengths)
        url_image("openai", "data:image/png;base64," + text)
        assert image_tokens(url_image("openai", "data:;base64," + text)) > 0


@given(fill=st.integers(0, 100_000))
def test_a_jpeg_of_any_length_is_walked_in_bounded_steps(fill: int) -> None:
    data = b64(b"\xff\xd8" + b"\xff" * fill)
    with pytest.MonkeyPatch.context() as patch:
        lengths = counted_decoding(patch)
        assert inline_size(data) is None
        assert_bounded(data, lengths)
