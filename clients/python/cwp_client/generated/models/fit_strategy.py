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

from ..models.fit_strategy_overflow import FitStrategyOverflow
from ..types import UNSET, Unset

T = TypeVar("T", bound="FitStrategy")


@_attrs_define
class FitStrategy:
    """Engages when the counted window (system prompt, transcript and `reserve_tokens`) is over
    `max_tokens`; removes the fewest turns that bring it to `target_tokens`
    (docs/rules.md#the-fit-strategy).

        Attributes:
            kind (Literal['fit']):
            max_tokens (int): The budget that engages the strategy.
            target_tokens (int | Unset): What a cut aims at, at most `max_tokens`; default max(1, floor(0.8 × max_tokens)),
                which leaves the window room to grow with the same prefix (prompt caches).
            reserve_tokens (int | Unset): What the next call adds outside the transcript (tool schemas, instructions, the
                reply's room), counted in every total. Default: 0.
            keep_recent_turns (int | Unset):  Default: 2.
            overflow (FitStrategyOverflow | Unset): When the span leaves the window over `target_tokens`, `fit` goes on:
                further spans, then pinned turns, then the keep window's turns, then (`cap`) the kept results capped and images
                replaced; `report` stops before the caps (docs/rules.md#within-the-limit). Default: FitStrategyOverflow.CAP.
    """

    kind: Literal["fit"]
    max_tokens: int
    target_tokens: int | Unset = UNSET
    reserve_tokens: int | Unset = 0
    keep_recent_turns: int | Unset = 2
    overflow: FitStrategyOverflow | Unset = FitStrategyOverflow.CAP

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        max_tokens = self.max_tokens

        target_tokens = self.target_tokens

        reserve_tokens = self.reserve_tokens

        keep_recent_turns = self.keep_recent_turns

        overflow: str | Unset = UNSET
        if not isinstance(self.overflow, Unset):
            overflow = self.overflow.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "max_tokens": max_tokens,
            }
        )
        if target_tokens is not UNSET:
            field_dict["target_tokens"] = target_tokens
        if reserve_tokens is not UNSET:
            field_dict["reserve_tokens"] = reserve_tokens
        if keep_recent_turns is not UNSET:
            field_dict["keep_recent_turns"] = keep_recent_turns
        if overflow is not UNSET:
            field_dict["overflow"] = overflow

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = cast(Literal["fit"], d.pop("kind"))
        if kind != "fit":
            raise ValueError(f"kind must match const 'fit', got '{kind}'")

        max_tokens = d.pop("max_tokens")

        target_tokens = d.pop("target_tokens", UNSET)

        reserve_tokens = d.pop("reserve_tokens", UNSET)

        keep_recent_turns = d.pop("keep_recent_turns", UNSET)

        _overflow = d.pop("overflow", UNSET)
        overflow: FitStrategyOverflow | Unset
        if isinstance(_overflow, Unset):
            overflow = UNSET
        else:
            overflow = FitStrategyOverflow(_overflow)

        fit_strategy = cls(
            kind=kind,
            max_tokens=max_tokens,
            target_tokens=target_tokens,
            reserve_tokens=reserve_tokens,
            keep_recent_turns=keep_recent_turns,
            overflow=overflow,
        )

        return fit_strategy
