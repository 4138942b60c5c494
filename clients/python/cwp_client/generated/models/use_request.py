from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.used_pair_in import UsedPairIn


T = TypeVar("T", bound="UseRequest")


@_attrs_define
class UseRequest:
    """Spend the kept answers a batch filled calls from.

    Attributes:
        turn (int): The agent's turn number; only entries kept in this turn are read. `3.0` is turn 3.
        used (list[UsedPairIn]): The pairs the batch filled from; every entry of each goes. May be empty.
        kept (list[Any] | None | Unset): The list this endpoint returned last, as stored by the caller; absent or null
            when there is none. Entries are read leniently: one that is not `{"turn": number, "tool_name": string,
            "argument": string, "value": string|number|boolean}` is skipped silently; extra keys are kept.
    """

    turn: int
    used: list[UsedPairIn]
    kept: list[Any] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.used_pair_in import UsedPairIn  # noqa: PLC0415

        turn = self.turn

        used = []
        for used_item_data in self.used:
            used_item = used_item_data.to_dict()
            used.append(used_item)

        kept: list[Any] | None | Unset
        if isinstance(self.kept, Unset):
            kept = UNSET
        elif isinstance(self.kept, list):
            kept = self.kept

        else:
            kept = self.kept

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "turn": turn,
                "used": used,
            }
        )
        if kept is not UNSET:
            field_dict["kept"] = kept

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.used_pair_in import UsedPairIn  # noqa: PLC0415

        d = dict(src_dict)
        turn = d.pop("turn")

        used = []
        _used = d.pop("used")
        for used_item_data in _used:
            used_item = UsedPairIn.from_dict(used_item_data)

            used.append(used_item)

        def _parse_kept(data: object) -> list[Any] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                kept_type_0 = cast(list[Any], data)

                return kept_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None | Unset, data)

        kept = _parse_kept(d.pop("kept", UNSET))

        use_request = cls(
            turn=turn,
            used=used,
            kept=kept,
        )

        return use_request
