from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.last_tool_result_pin_out import LastToolResultPinOut


T = TypeVar("T", bound="LastToolResultBlock")


@_attrs_define
class LastToolResultBlock:
    """
    Attributes:
        pinned (list[LastToolResultPinOut]):
        yielded (int):
        limit (int):
        stand_down (bool):
    """

    pinned: list[LastToolResultPinOut]
    yielded: int
    limit: int
    stand_down: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.last_tool_result_pin_out import LastToolResultPinOut  # noqa: PLC0415

        pinned = []
        for pinned_item_data in self.pinned:
            pinned_item = pinned_item_data.to_dict()
            pinned.append(pinned_item)

        yielded = self.yielded

        limit = self.limit

        stand_down = self.stand_down

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "pinned": pinned,
                "yielded": yielded,
                "limit": limit,
                "stand_down": stand_down,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.last_tool_result_pin_out import LastToolResultPinOut  # noqa: PLC0415

        d = dict(src_dict)
        pinned = []
        _pinned = d.pop("pinned")
        for pinned_item_data in _pinned:
            pinned_item = LastToolResultPinOut.from_dict(pinned_item_data)

            pinned.append(pinned_item)

        yielded = d.pop("yielded")

        limit = d.pop("limit")

        stand_down = d.pop("stand_down")

        last_tool_result_block = cls(
            pinned=pinned,
            yielded=yielded,
            limit=limit,
            stand_down=stand_down,
        )

        last_tool_result_block.additional_properties = d
        return last_tool_result_block

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
