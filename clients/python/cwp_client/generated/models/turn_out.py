from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    BinaryIO,
    Generator,
    Literal,
    TextIO,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.turn_out_fate import TurnOutFate
from ..models.turn_out_held_by_type_0 import TurnOutHeldByType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="TurnOut")


@_attrs_define
class TurnOut:
    """
    Attributes:
        index (int):
        start (int): Caller index of the turn's first message.
        length (int): Caller messages the turn touches.
        chars (int):
        fate (TurnOutFate):
        held_by (Literal['not-reached'] | None | TurnOutHeldByType0):
    """

    index: int
    start: int
    length: int
    chars: int
    fate: TurnOutFate
    held_by: Literal["not-reached"] | None | TurnOutHeldByType0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        start = self.start

        length = self.length

        chars = self.chars

        fate = self.fate.value

        held_by: Literal["not-reached"] | None | str
        if isinstance(self.held_by, TurnOutHeldByType0):
            held_by = self.held_by.value
        else:
            held_by = self.held_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "start": start,
                "length": length,
                "chars": chars,
                "fate": fate,
                "held_by": held_by,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        index = d.pop("index")

        start = d.pop("start")

        length = d.pop("length")

        chars = d.pop("chars")

        fate = TurnOutFate(d.pop("fate"))

        def _parse_held_by(
            data: object,
        ) -> Literal["not-reached"] | None | TurnOutHeldByType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                held_by_type_0 = TurnOutHeldByType0(data)

                return held_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            held_by_type_1 = cast(Literal["not-reached"], data)
            if held_by_type_1 != "not-reached":
                raise ValueError(
                    f"held_by_type_1 must match const 'not-reached', got '{held_by_type_1}'"
                )
            return held_by_type_1
            return cast(Literal["not-reached"] | None | TurnOutHeldByType0, data)

        held_by = _parse_held_by(d.pop("held_by"))

        turn_out = cls(
            index=index,
            start=start,
            length=length,
            chars=chars,
            fate=fate,
            held_by=held_by,
        )

        turn_out.additional_properties = d
        return turn_out

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
