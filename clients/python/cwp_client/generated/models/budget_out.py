from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.budget_out_stage import BudgetOutStage
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.budget_span_out import BudgetSpanOut


T = TypeVar("T", bound="BudgetOut")


@_attrs_define
class BudgetOut:
    """The `fit` strategy's budget: `total` = system prompt + window + `reserve_tokens`.

    Attributes:
        max_tokens (int):
        target_tokens (int):
        reserve_tokens (int):
        total_before (int):
        total_after (int):
        met (bool): Engaged: `total_after <= target_tokens` when `stage` is `span` or `further-spans`; `total_after <=
            max_tokens` for a held cut and for the later stages, which aim at the limit. Not engaged: true (the window is
            within `max_tokens`).
        held (bool): True when the plan held the previous `fit` cut (the last record of `prior_records`) instead of
            cutting to `target_tokens`, so the window keeps its prefix; else false (false when not engaged).
        stage (BudgetOutStage): The last stage that removed or shaped something: `span` (the span alone, also when
            nothing was removed), `further-spans`, `pins`, `keep-window` or `caps` (docs/rules.md#within-the-limit).
        released_pins (int): The pinned turns that left (0 unless `pins` ran).
        spans (list[BudgetSpanOut]): Every maximal run of turns that left, in turn order, with the stage that took it (a
            run two stages took is split where the stage changes); `[]` when nothing left.
        clear_held (bool | None | Unset): Only when the request has `clear` on: true when the clear boundary and the cut
            of the last record were both held (the window still fits `max_tokens`), false otherwise (docs/rules.md#holding-
            the-boundary).
    """

    max_tokens: int
    target_tokens: int
    reserve_tokens: int
    total_before: int
    total_after: int
    met: bool
    held: bool
    stage: BudgetOutStage
    released_pins: int
    spans: list[BudgetSpanOut]
    clear_held: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.budget_span_out import BudgetSpanOut  # noqa: PLC0415

        max_tokens = self.max_tokens

        target_tokens = self.target_tokens

        reserve_tokens = self.reserve_tokens

        total_before = self.total_before

        total_after = self.total_after

        met = self.met

        held = self.held

        stage = self.stage.value

        released_pins = self.released_pins

        spans = []
        for spans_item_data in self.spans:
            spans_item = spans_item_data.to_dict()
            spans.append(spans_item)

        clear_held: bool | None | Unset
        if isinstance(self.clear_held, Unset):
            clear_held = UNSET
        else:
            clear_held = self.clear_held

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "max_tokens": max_tokens,
                "target_tokens": target_tokens,
                "reserve_tokens": reserve_tokens,
                "total_before": total_before,
                "total_after": total_after,
                "met": met,
                "held": held,
                "stage": stage,
                "released_pins": released_pins,
                "spans": spans,
            }
        )
        if clear_held is not UNSET:
            field_dict["clear_held"] = clear_held

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.budget_span_out import BudgetSpanOut  # noqa: PLC0415

        d = dict(src_dict)
        max_tokens = d.pop("max_tokens")

        target_tokens = d.pop("target_tokens")

        reserve_tokens = d.pop("reserve_tokens")

        total_before = d.pop("total_before")

        total_after = d.pop("total_after")

        met = d.pop("met")

        held = d.pop("held")

        stage = BudgetOutStage(d.pop("stage"))

        released_pins = d.pop("released_pins")

        spans = []
        _spans = d.pop("spans")
        for spans_item_data in _spans:
            spans_item = BudgetSpanOut.from_dict(spans_item_data)

            spans.append(spans_item)

        def _parse_clear_held(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        clear_held = _parse_clear_held(d.pop("clear_held", UNSET))

        budget_out = cls(
            max_tokens=max_tokens,
            target_tokens=target_tokens,
            reserve_tokens=reserve_tokens,
            total_before=total_before,
            total_after=total_after,
            met=met,
            held=held,
            stage=stage,
            released_pins=released_pins,
            spans=spans,
            clear_held=clear_held,
        )

        budget_out.additional_properties = d
        return budget_out

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
