from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.record_out_strategy import RecordOutStrategy
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.pins_out import PinsOut
    from ..models.refusal_out import RefusalOut


T = TypeVar("T", bound="RecordOut")


@_attrs_define
class RecordOut:
    """
    Attributes:
        strategy (RecordOutStrategy):
        iteration (int):
        removed_message_count (int):
        refusals (list[RefusalOut]):
        pins (PinsOut):
        cleared_results (int | None | Unset): Only when the request has `clear` on: the clear boundary's position among
            the read results (0 when clear did not apply or there was no boundary). Under `fit`, a plan whose clear applied
            files a record even when it does not engage (the clear-only record: nothing removed, no refusals, no pins), so
            the next plan can hold the boundary.
    """

    strategy: RecordOutStrategy
    iteration: int
    removed_message_count: int
    refusals: list[RefusalOut]
    pins: PinsOut
    cleared_results: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.pins_out import PinsOut  # noqa: PLC0415
        from ..models.refusal_out import RefusalOut  # noqa: PLC0415

        strategy = self.strategy.value

        iteration = self.iteration

        removed_message_count = self.removed_message_count

        refusals = []
        for refusals_item_data in self.refusals:
            refusals_item = refusals_item_data.to_dict()
            refusals.append(refusals_item)

        pins = self.pins.to_dict()

        cleared_results: int | None | Unset
        if isinstance(self.cleared_results, Unset):
            cleared_results = UNSET
        else:
            cleared_results = self.cleared_results

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "strategy": strategy,
                "iteration": iteration,
                "removed_message_count": removed_message_count,
                "refusals": refusals,
                "pins": pins,
            }
        )
        if cleared_results is not UNSET:
            field_dict["cleared_results"] = cleared_results

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pins_out import PinsOut  # noqa: PLC0415
        from ..models.refusal_out import RefusalOut  # noqa: PLC0415

        d = dict(src_dict)
        strategy = RecordOutStrategy(d.pop("strategy"))

        iteration = d.pop("iteration")

        removed_message_count = d.pop("removed_message_count")

        refusals = []
        _refusals = d.pop("refusals")
        for refusals_item_data in _refusals:
            refusals_item = RefusalOut.from_dict(refusals_item_data)

            refusals.append(refusals_item)

        pins = PinsOut.from_dict(d.pop("pins"))

        def _parse_cleared_results(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cleared_results = _parse_cleared_results(d.pop("cleared_results", UNSET))

        record_out = cls(
            strategy=strategy,
            iteration=iteration,
            removed_message_count=removed_message_count,
            refusals=refusals,
            pins=pins,
            cleared_results=cleared_results,
        )

        record_out.additional_properties = d
        return record_out

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
