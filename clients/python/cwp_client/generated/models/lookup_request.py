from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LookupRequest")


@_attrs_define
class LookupRequest:
    """Find the kept answer for one argument of a proposed call.

    Attributes:
        turn (int): The agent's turn number; only entries kept in this turn are read. `3.0` is turn 3.
        tool_name (str): The tool of the proposed call.
        argument (str): The argument the proposed call leaves out.
        kept (list[Any] | None | Unset): The list this endpoint returned last, as stored by the caller; absent or null
            when there is none. Entries are read leniently: one that is not `{"turn": number, "tool_name": string,
            "argument": string, "value": string|number|boolean}` is skipped silently; extra keys are kept.
    """

    turn: int
    tool_name: str
    argument: str
    kept: list[Any] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        turn = self.turn

        tool_name = self.tool_name

        argument = self.argument

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
                "tool_name": tool_name,
                "argument": argument,
            }
        )
        if kept is not UNSET:
            field_dict["kept"] = kept

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        turn = d.pop("turn")

        tool_name = d.pop("tool_name")

        argument = d.pop("argument")

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

        lookup_request = cls(
            turn=turn,
            tool_name=tool_name,
            argument=argument,
            kept=kept,
        )

        return lookup_request
