from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.kept_entry import KeptEntry


T = TypeVar("T", bound="KeepResponse")


@_attrs_define
class KeepResponse:
    """This turn's list with the answers kept (always a list).

    Attributes:
        kept (list[KeptEntry]):
    """

    kept: list[KeptEntry]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.kept_entry import KeptEntry  # noqa: PLC0415

        kept = []
        for kept_item_data in self.kept:
            kept_item = kept_item_data.to_dict()
            kept.append(kept_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kept": kept,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.kept_entry import KeptEntry  # noqa: PLC0415

        d = dict(src_dict)
        kept = []
        _kept = d.pop("kept")
        for kept_item_data in _kept:
            kept_item = KeptEntry.from_dict(kept_item_data)

            kept.append(kept_item)

        keep_response = cls(
            kept=kept,
        )

        keep_response.additional_properties = d
        return keep_response

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
