from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

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
        met (bool): Engaged: `total_after <= target_tokens`, or for a held cut `total_after <= max_tokens`. Not engaged:
            true (the window is within `max_tokens`).
        held (bool): True when the plan held the previous `fit` cut (the last record of `prior_records`) instead of
            cutting to `target_tokens`, so the window keeps its prefix; else false (false when not engaged).
    """

    max_tokens: int
    target_tokens: int
    reserve_tokens: int
    total_before: int
    total_after: int
    met: bool
    held: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        max_tokens = self.max_tokens

        target_tokens = self.target_tokens

        reserve_tokens = self.reserve_tokens

        total_before = self.total_before

        total_after = self.total_after

        met = self.met

        held = self.held

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
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        max_tokens = d.pop("max_tokens")

        target_tokens = d.pop("target_tokens")

        reserve_tokens = d.pop("reserve_tokens")

        total_before = d.pop("total_before")

        total_after = d.pop("total_after")

        met = d.pop("met")

        held = d.pop("held")

        budget_out = cls(
            max_tokens=max_tokens,
            target_tokens=target_tokens,
            reserve_tokens=reserve_tokens,
            total_before=total_before,
            total_after=total_after,
            met=met,
            held=held,
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
