from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.budget_span_out_stage import BudgetSpanOutStage
from ..types import UNSET, Unset

T = TypeVar("T", bound="BudgetSpanOut")


@_attrs_define
class BudgetSpanOut:
    """
    Attributes:
        from_turn (int):
        through_turn (int):
        stage (BudgetSpanOutStage): `span` for the first span, else the stage that took it.
    """

    from_turn: int
    through_turn: int
    stage: BudgetSpanOutStage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_turn = self.from_turn

        through_turn = self.through_turn

        stage = self.stage.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from_turn": from_turn,
                "through_turn": through_turn,
                "stage": stage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_turn = d.pop("from_turn")

        through_turn = d.pop("through_turn")

        stage = BudgetSpanOutStage(d.pop("stage"))

        budget_span_out = cls(
            from_turn=from_turn,
            through_turn=through_turn,
            stage=stage,
        )

        budget_span_out.additional_properties = d
        return budget_span_out

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
