from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="BedrockConverseUsage")


@_attrs_define
class BedrockConverseUsage:
    """`usage` of a Bedrock Converse response. Recognised by inputTokens and outputTokens. Read as input_tokens =
    inputTokens + cacheReadInputTokens + cacheWriteInputTokens, output_tokens = outputTokens; inputTokens is required,
    the other counts may be absent or null (0). Keys not listed are ignored. An object with the keys of a shape listed
    before is read as that shape.

        Attributes:
            input_tokens (int):
            output_tokens (int | None):
            cache_read_input_tokens (int | None | Unset):
            cache_write_input_tokens (int | None | Unset):
    """

    input_tokens: int
    output_tokens: int | None
    cache_read_input_tokens: int | None | Unset = UNSET
    cache_write_input_tokens: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_tokens = self.input_tokens

        output_tokens: int | None
        output_tokens = self.output_tokens

        cache_read_input_tokens: int | None | Unset
        if isinstance(self.cache_read_input_tokens, Unset):
            cache_read_input_tokens = UNSET
        else:
            cache_read_input_tokens = self.cache_read_input_tokens

        cache_write_input_tokens: int | None | Unset
        if isinstance(self.cache_write_input_tokens, Unset):
            cache_write_input_tokens = UNSET
        else:
            cache_write_input_tokens = self.cache_write_input_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "inputTokens": input_tokens,
                "outputTokens": output_tokens,
            }
        )
        if cache_read_input_tokens is not UNSET:
            field_dict["cacheReadInputTokens"] = cache_read_input_tokens
        if cache_write_input_tokens is not UNSET:
            field_dict["cacheWriteInputTokens"] = cache_write_input_tokens

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        input_tokens = d.pop("inputTokens")

        def _parse_output_tokens(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        output_tokens = _parse_output_tokens(d.pop("outputTokens"))

        def _parse_cache_read_input_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cache_read_input_tokens = _parse_cache_read_input_tokens(
            d.pop("cacheReadInputTokens", UNSET)
        )

        def _parse_cache_write_input_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cache_write_input_tokens = _parse_cache_write_input_tokens(
            d.pop("cacheWriteInputTokens", UNSET)
        )

        bedrock_converse_usage = cls(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cache_read_input_tokens=cache_read_input_tokens,
            cache_write_input_tokens=cache_write_input_tokens,
        )

        bedrock_converse_usage.additional_properties = d
        return bedrock_converse_usage

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
