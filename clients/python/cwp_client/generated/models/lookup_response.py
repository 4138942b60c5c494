from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.kept_entry import KeptEntry


T = TypeVar("T", bound="LookupResponse")


@_attrs_define
class LookupResponse:
    """The first entry of this turn for the pair, and every entry of this turn.

    Attributes:
        answer (KeptEntry | None):
        this_turn (list[KeptEntry]):
    """

    answer: KeptEntry | None
    this_turn: list[KeptEntry]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.kept_entry import KeptEntry  # noqa: PLC0415

        answer: dict[str, Any] | None
        if isinstance(self.answer, KeptEntry):
            answer = self.answer.to_dict()
        else:
            answer = self.answer

        this_turn = []
        for this_turn_item_data in self.this_turn:
            this_turn_item = this_turn_item_data.to_dict()
            this_turn.append(this_turn_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "answer": answer,
                "this_turn": this_turn,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.kept_entry import KeptEntry  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_answer(data: object) -> KeptEntry | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                answer_type_0 = KeptEntry.from_dict(data)

                return answer_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(KeptEntry | None, data)

        answer = _parse_answer(d.pop("answer"))

        this_turn = []
        _this_turn = d.pop("this_turn")
        for this_turn_item_data in _this_turn:
            this_turn_item = KeptEntry.from_dict(this_turn_item_data)

            this_turn.append(this_turn_item)

        lookup_response = cls(
            answer=answer,
            this_turn=this_turn,
        )

        lookup_response.additional_properties = d
        return lookup_response

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
