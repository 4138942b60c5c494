from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.dropped_standing_out_standing_type_0 import (
    DroppedStandingOutStandingType0,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="DroppedStandingOut")


@_attrs_define
class DroppedStandingOut:
    """
    Attributes:
        tool_call_id (str):
        standing (DroppedStandingOutStandingType0 | None):
    """

    tool_call_id: str
    standing: DroppedStandingOutStandingType0 | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tool_call_id = self.tool_call_id

        standing: None | str
        if isinstance(self.standing, DroppedStandingOutStandingType0):
            standing = self.standing.value
        else:
            standing = self.standing

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tool_call_id": tool_call_id,
                "standing": standing,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tool_call_id = d.pop("tool_call_id")

        def _parse_standing(data: object) -> DroppedStandingOutStandingType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                standing_type_0 = DroppedStandingOutStandingType0(data)

                return standing_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DroppedStandingOutStandingType0 | None, data)

        standing = _parse_standing(d.pop("standing"))

        dropped_standing_out = cls(
            tool_call_id=tool_call_id,
            standing=standing,
        )

        dropped_standing_out.additional_properties = d
        return dropped_standing_out

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
