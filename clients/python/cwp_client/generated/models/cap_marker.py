from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CapMarker")


@_attrs_define
class CapMarker:
    """What replaces an over-size result: one shape whatever the result's type.

    Attributes:
        truncated (bool):
        reason (str): `{tool_name} returned {n} chars, over the {cap}-char cap. Narrow the request and call again.`
        head (None | str | Unset): The first characters of the measured text, verbatim; left out when none fits. Written
            compactly, the marker is then within the cap.
    """

    truncated: bool
    reason: str
    head: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        truncated = self.truncated

        reason = self.reason

        head: None | str | Unset
        if isinstance(self.head, Unset):
            head = UNSET
        else:
            head = self.head

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "truncated": truncated,
                "reason": reason,
            }
        )
        if head is not UNSET:
            field_dict["head"] = head

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        truncated = d.pop("truncated")

        reason = d.pop("reason")

        def _parse_head(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        head = _parse_head(d.pop("head", UNSET))

        cap_marker = cls(
            truncated=truncated,
            reason=reason,
            head=head,
        )

        cap_marker.additional_properties = d
        return cap_marker

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
