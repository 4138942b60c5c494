from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.refusal_out_reason import RefusalOutReason
from ..types import UNSET, Unset

T = TypeVar("T", bound="RefusalOut")


@_attrs_define
class RefusalOut:
    """
    Attributes:
        reason (RefusalOutReason):
        turn_index (int):
        message_index (int):
    """

    reason: RefusalOutReason
    turn_index: int
    message_index: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reason = self.reason.value

        turn_index = self.turn_index

        message_index = self.message_index

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reason": reason,
                "turn_index": turn_index,
                "message_index": message_index,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        reason = RefusalOutReason(d.pop("reason"))

        turn_index = d.pop("turn_index")

        message_index = d.pop("message_index")

        refusal_out = cls(
            reason=reason,
            turn_index=turn_index,
            message_index=message_index,
        )

        refusal_out.additional_properties = d
        return refusal_out

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
