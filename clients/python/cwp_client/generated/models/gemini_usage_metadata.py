from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="GeminiUsageMetadata")


@_attrs_define
class GeminiUsageMetadata:
    """`usageMetadata` of a Gemini response, as the REST API writes it. Recognised by promptTokenCount. Read as
    input_tokens = promptTokenCount + toolUsePromptTokenCount, output_tokens = candidatesTokenCount; promptTokenCount is
    required, the other counts may be absent or null (0). Keys not listed are ignored. An object with the keys of a
    shape listed before is read as that shape.

        Attributes:
            prompt_token_count (int):
            tool_use_prompt_token_count (int | None | Unset):
            candidates_token_count (int | None | Unset):
    """

    prompt_token_count: int
    tool_use_prompt_token_count: int | None | Unset = UNSET
    candidates_token_count: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        prompt_token_count = self.prompt_token_count

        tool_use_prompt_token_count: int | None | Unset
        if isinstance(self.tool_use_prompt_token_count, Unset):
            tool_use_prompt_token_count = UNSET
        else:
            tool_use_prompt_token_count = self.tool_use_prompt_token_count

        candidates_token_count: int | None | Unset
        if isinstance(self.candidates_token_count, Unset):
            candidates_token_count = UNSET
        else:
            candidates_token_count = self.candidates_token_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "promptTokenCount": prompt_token_count,
            }
        )
        if tool_use_prompt_token_count is not UNSET:
            field_dict["toolUsePromptTokenCount"] = tool_use_prompt_token_count
        if candidates_token_count is not UNSET:
            field_dict["candidatesTokenCount"] = candidates_token_count

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        prompt_token_count = d.pop("promptTokenCount")

        def _parse_tool_use_prompt_token_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tool_use_prompt_token_count = _parse_tool_use_prompt_token_count(
            d.pop("toolUsePromptTokenCount", UNSET)
        )

        def _parse_candidates_token_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        candidates_token_count = _parse_candidates_token_count(
            d.pop("candidatesTokenCount", UNSET)
        )

        gemini_usage_metadata = cls(
            prompt_token_count=prompt_token_count,
            tool_use_prompt_token_count=tool_use_prompt_token_count,
            candidates_token_count=candidates_token_count,
        )

        gemini_usage_metadata.additional_properties = d
        return gemini_usage_metadata

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
