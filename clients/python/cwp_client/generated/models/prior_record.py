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
    cut. `cleared_results`, on the records of a request with `clear` on, is the clear boundary
    the next `fit` plan may hold (docs/rules.md#holding-the-boundary).

        Attributes:
            removed_message_count (int):
            refusals (list[PriorRefusal]):
            cleared_results (int | None | Unset): The clear boundary's position among the read results (0: none), on a
                record of a request with `clear` on; absent or null: the record holds no boundary.
    """

    removed_message_count: int
    refusals: list[PriorRefusal]
    cleared_results: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.prior_refusal import PriorRefusal  # noqa: PLC0415

        removed_message_count = self.removed_message_count

        refusals = []
        for refusals_item_data in self.refusals:
            refusals_item = refusals_item_data.to_dict()
            refusals.append(refusals_item)

        cleared_results: int | None | Unset
        if isinstance(self.cleared_results, Unset):
            cleared_results = UNSET
        else:
            cleared_results = self.cleared_results

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "removed_message_count": removed_message_count,
                "refusals": refusals,
            }
        )
        if cleared_results is not UNSET:
            field_dict["cleared_results"] = cleared_results

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

        def _parse_cleared_results(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cleared_results = _parse_cleared_results(d.pop("cleared_results", UNSET))

        prior_record = cls(
            removed_message_count=removed_message_count,
            refusals=refusals,
            cleared_results=cleared_results,
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
