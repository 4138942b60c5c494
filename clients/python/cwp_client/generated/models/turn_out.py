from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.turn_out_fate import TurnOutFate
from ..models.turn_out_held_by_type_0 import TurnOutHeldByType0
from ..models.turn_out_held_by_type_1 import TurnOutHeldByType1
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
        held_by (None | TurnOutHeldByType0 | TurnOutHeldByType1):
        tokens (int | None | Unset): With a tokenizer only.
    """

    index: int
    start: int
    length: int
    chars: int
    fate: TurnOutFate
    held_by: None | TurnOutHeldByType0 | TurnOutHeldByType1
    tokens: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        start = self.start

        length = self.length

        chars = self.chars

        fate = self.fate.value

        held_by: None | str
        if isinstance(self.held_by, TurnOutHeldByType0):
            held_by = self.held_by.value
        elif isinstance(self.held_by, TurnOutHeldByType1):
            held_by = self.held_by.value
        else:
            held_by = self.held_by

        tokens: int | None | Unset
        if isinstance(self.tokens, Unset):
            tokens = UNSET
        else:
            tokens = self.tokens

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
        if tokens is not UNSET:
            field_dict["tokens"] = tokens

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
        ) -> None | TurnOutHeldByType0 | TurnOutHeldByType1:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                held_by_type_0 = TurnOutHeldByType0(data)

                return held_by_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                held_by_type_1 = TurnOutHeldByType1(data)

                return held_by_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TurnOutHeldByType0 | TurnOutHeldByType1, data)

        held_by = _parse_held_by(d.pop("held_by"))

        def _parse_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tokens = _parse_tokens(d.pop("tokens", UNSET))

        turn_out = cls(
            index=index,
            start=start,
            length=length,
            chars=chars,
            fate=fate,
            held_by=held_by,
            tokens=tokens,
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
