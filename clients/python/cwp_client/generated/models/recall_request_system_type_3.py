from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.recall_request_system_type_3_parts_item import (
        RecallRequestSystemType3PartsItem,
    )


T = TypeVar("T", bound="RecallRequestSystemType3")


@_attrs_define
class RecallRequestSystemType3:
    """Gemini `systemInstruction`.

    Attributes:
        parts (list[RecallRequestSystemType3PartsItem]):
    """

    parts: list[RecallRequestSystemType3PartsItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.recall_request_system_type_3_parts_item import (
            RecallRequestSystemType3PartsItem,  # noqa: PLC0415
        )

        parts = []
        for parts_item_data in self.parts:
            parts_item = parts_item_data.to_dict()
            parts.append(parts_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "parts": parts,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.recall_request_system_type_3_parts_item import (
            RecallRequestSystemType3PartsItem,  # noqa: PLC0415
        )

        d = dict(src_dict)
        parts = []
        _parts = d.pop("parts")
        for parts_item_data in _parts:
            parts_item = RecallRequestSystemType3PartsItem.from_dict(parts_item_data)

            parts.append(parts_item)

        recall_request_system_type_3 = cls(
            parts=parts,
        )

        recall_request_system_type_3.additional_properties = d
        return recall_request_system_type_3

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
