from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Paused")


@_attrs_define
class Paused:
    """The call the run is paused on.

    Attributes:
        tool_call_id (str):
        check_in (bool | Unset):  Default: False.
    """

    tool_call_id: str
    check_in: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        tool_call_id = self.tool_call_id

        check_in = self.check_in

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "tool_call_id": tool_call_id,
            }
        )
        if check_in is not UNSET:
            field_dict["check_in"] = check_in

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tool_call_id = d.pop("tool_call_id")

        check_in = d.pop("check_in", UNSET)

        paused = cls(
            tool_call_id=tool_call_id,
            check_in=check_in,
        )

        return paused
