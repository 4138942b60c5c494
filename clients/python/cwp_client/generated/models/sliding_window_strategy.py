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

from ..types import UNSET, Unset

T = TypeVar("T", bound="SlidingWindowStrategy")


@_attrs_define
class SlidingWindowStrategy:
    """Engages when there are more turns than `keep_recent_turns`.

    Attributes:
        kind (Literal['sliding-window']):
        keep_recent_turns (int | Unset):  Default: 6.
    """

    kind: Literal["sliding-window"]
    keep_recent_turns: int | Unset = 6

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        keep_recent_turns = self.keep_recent_turns

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if keep_recent_turns is not UNSET:
            field_dict["keep_recent_turns"] = keep_recent_turns

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = cast(Literal["sliding-window"], d.pop("kind"))
        if kind != "sliding-window":
            raise ValueError(f"kind must match const 'sliding-window', got '{kind}'")

        keep_recent_turns = d.pop("keep_recent_turns", UNSET)

        sliding_window_strategy = cls(
            kind=kind,
            keep_recent_turns=keep_recent_turns,
        )

        return sliding_window_strategy
