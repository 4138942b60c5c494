from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PlanSummarize")


@_attrs_define
class PlanSummarize:
    """The plan's `summarize` (docs/rules.md#summaries): when a span leaves at the front, the
    answer carries a summary request, ready to send to the agent's own model. `{}` is all
    defaults.

        Attributes:
            instructions (str | Unset): The instruction the summary request ends with, as a user text. Default: 'Summarize
                the conversation above for your own later use: this summary will replace those messages in your context window.
                Keep verbatim every identifier, file path, number, URL and name a later step may need; the decisions taken and
                why; what was tried and failed; what is still open. Plain text, no preamble, at most 400 words.'.
            min_span_tokens (int | Unset): A span under this many tokens (the request's tokenizer, `estimate` when none)
                gets no summary request: it is not worth a model call. Default: 1000.
    """

    instructions: str | Unset = (
        "Summarize the conversation above for your own later use: this summary will replace those messages in your context window. Keep verbatim every identifier, file path, number, URL and name a later step may need; the decisions taken and why; what was tried and failed; what is still open. Plain text, no preamble, at most 400 words."
    )
    min_span_tokens: int | Unset = 1000

    def to_dict(self) -> dict[str, Any]:
        instructions = self.instructions

        min_span_tokens = self.min_span_tokens

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if min_span_tokens is not UNSET:
            field_dict["min_span_tokens"] = min_span_tokens

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        instructions = d.pop("instructions", UNSET)

        min_span_tokens = d.pop("min_span_tokens", UNSET)

        plan_summarize = cls(
            instructions=instructions,
            min_span_tokens=min_span_tokens,
        )

        return plan_summarize
