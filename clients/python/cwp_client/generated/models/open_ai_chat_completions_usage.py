from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="OpenAIChatCompletionsUsage")


@_attrs_define
class OpenAIChatCompletionsUsage:
    """`completion.usage` of the OpenAI Chat Completions API. Recognised by prompt_tokens and completion_tokens. Read as
    input_tokens = prompt_tokens, output_tokens = completion_tokens; prompt_tokens is required, the other counts may be
    absent or null (0). Keys not listed are ignored. An object with the keys of a shape listed before is read as that
    shape.

        Attributes:
            prompt_tokens (int):
            completion_tokens (int | None):
    """

    prompt_tokens: int
    completion_tokens: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        prompt_tokens = self.prompt_tokens

        completion_tokens: int | None
        completion_tokens = self.completion_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        prompt_tokens = d.pop("prompt_tokens")

        def _parse_completion_tokens(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        completion_tokens = _parse_completion_tokens(d.pop("completion_tokens"))

        open_ai_chat_completions_usage = cls(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )

        open_ai_chat_completions_usage.additional_properties = d
        return open_ai_chat_completions_usage

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
