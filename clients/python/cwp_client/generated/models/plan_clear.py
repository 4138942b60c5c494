from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PlanClear")


@_attrs_define
class PlanClear:
    """The plan's `clear` (docs/rules.md#clear): results the model has read, older than the newest
    `keep_last`, are sent as a short placeholder, the boundary moving by `step` read results at a
    time so the window's prefix stays the same between moves (a provider prompt cache keeps
    hitting). `{}` is all defaults.

        Attributes:
            keep_last (int | Unset): The newest read results never cleared (the boundary's distance from them). Default: 3.
            step (int | Unset): The boundary moves every `step` read results (1: with every result). Default: 8.
            exclude_tools (list[str] | Unset): Tool names whose results are never cleared.
            trigger_tokens (int | None | Unset): Clear only when the total before clearing (system prompt, transcript and
                `fit`'s reserve, in tokens) is over this. null: under `fit` when that total is over `max_tokens`, under any
                other strategy always.
            images (bool | Unset): Replace the images of the user messages and results at or before the boundary by the text
                `[image removed from the context window]` (never the current request's, a spared result's, or a Responses
                computer screenshot). Default: False.
            thinking (bool | Unset): Remove the model's reasoning (Anthropic thinking, Bedrock reasoning content, Responses
                reasoning items, Gemini thought parts) from the assistant messages at or before the boundary (never the last
                assistant message's). Default: False.
    """

    keep_last: int | Unset = 3
    step: int | Unset = 8
    exclude_tools: list[str] | Unset = UNSET
    trigger_tokens: int | None | Unset = UNSET
    images: bool | Unset = False
    thinking: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        keep_last = self.keep_last

        step = self.step

        exclude_tools: list[str] | Unset = UNSET
        if not isinstance(self.exclude_tools, Unset):
            exclude_tools = self.exclude_tools

        trigger_tokens: int | None | Unset
        if isinstance(self.trigger_tokens, Unset):
            trigger_tokens = UNSET
        else:
            trigger_tokens = self.trigger_tokens

        images = self.images

        thinking = self.thinking

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if keep_last is not UNSET:
            field_dict["keep_last"] = keep_last
        if step is not UNSET:
            field_dict["step"] = step
        if exclude_tools is not UNSET:
            field_dict["exclude_tools"] = exclude_tools
        if trigger_tokens is not UNSET:
            field_dict["trigger_tokens"] = trigger_tokens
        if images is not UNSET:
            field_dict["images"] = images
        if thinking is not UNSET:
            field_dict["thinking"] = thinking

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        keep_last = d.pop("keep_last", UNSET)

        step = d.pop("step", UNSET)

        exclude_tools = cast(list[str], d.pop("exclude_tools", UNSET))

        def _parse_trigger_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        trigger_tokens = _parse_trigger_tokens(d.pop("trigger_tokens", UNSET))

        images = d.pop("images", UNSET)

        thinking = d.pop("thinking", UNSET)

        plan_clear = cls(
            keep_last=keep_last,
            step=step,
            exclude_tools=exclude_tools,
            trigger_tokens=trigger_tokens,
            images=images,
            thinking=thinking,
        )

        return plan_clear
