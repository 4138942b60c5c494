from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.prior_refusal import PriorRefusal


T = TypeVar("T", bound="PriorRecord")


@_attrs_define
class PriorRecord:
    """A `record` returned by an earlier plan of this run, sent back exactly as received. Its
    `strategy` is read too (the `fit` strategy's held cut); another value, or none, holds no
    cut.

        Attributes:
            removed_message_count (int):
            refusals (list[PriorRefusal]):
    """

    removed_message_count: int
    refusals: list[PriorRefusal]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.prior_refusal import PriorRefusal  # noqa: PLC0415

        removed_message_count = self.removed_message_count

        refusals = []
        for refusals_item_data in self.refusals:
            refusals_item = refusals_item_data.to_dict()
            refusals.append(refusals_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "removed_message_count": removed_message_count,
                "refusals": refusals,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.prior_refusal import PriorRefusal  # noqa: PLC0415

        d = dict(src_dict)
        removed_message_count = d.pop("removed_message_count")

        refusals = []
        _refusals = d.pop("refusals")
        for refusals_item_data in _refusals:
            refusals_item = PriorRefusal.from_dict(refusals_item_data)

            refusals.append(refusals_item)

        prior_record = cls(
            removed_message_count=removed_message_count,
            refusals=refusals,
        )

        prior_record.additional_properties = d
        return prior_record

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
