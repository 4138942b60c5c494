from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LedgerFactPinOut")


@_attrs_define
class LedgerFactPinOut:
    """
    Attributes:
        tool_name (str):
        turn_index (int):
        message_index (int):
        chars (int):
        tool_call_ids (list[str]):
        tokens (int | None | Unset): The turn's tokens, with a tokenizer only.
    """

    tool_name: str
    turn_index: int
    message_index: int
    chars: int
    tool_call_ids: list[str]
    tokens: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tool_name = self.tool_name

        turn_index = self.turn_index

        message_index = self.message_index

        chars = self.chars

        tool_call_ids = self.tool_call_ids

        tokens: int | None | Unset
        if isinstance(self.tokens, Unset):
            tokens = UNSET
        else:
            tokens = self.tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tool_name": tool_name,
                "turn_index": turn_index,
                "message_index": message_index,
                "chars": chars,
                "tool_call_ids": tool_call_ids,
            }
        )
        if tokens is not UNSET:
            field_dict["tokens"] = tokens

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tool_name = d.pop("tool_name")

        turn_index = d.pop("turn_index")

        message_index = d.pop("message_index")

        chars = d.pop("chars")

        tool_call_ids = cast(list[str], d.pop("tool_call_ids"))

        def _parse_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tokens = _parse_tokens(d.pop("tokens", UNSET))

        ledger_fact_pin_out = cls(
            tool_name=tool_name,
            turn_index=turn_index,
            message_index=message_index,
            chars=chars,
            tool_call_ids=tool_call_ids,
            tokens=tokens,
        )

        ledger_fact_pin_out.additional_properties = d
        return ledger_fact_pin_out

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
