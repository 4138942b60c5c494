from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PlanSummary")


@_attrs_define
class PlanSummary:
    """A summary the agent obtained for an earlier summary request: `from`, `through` and `key`
    exactly as that request gave them, and the model's text.

        Attributes:
            from_ (int): The first caller message summarized.
            through (int): The last caller message summarized (included).
            key (str): The summary request's `key`: the SHA-256 of messages from … through, as sent. When they changed, the
                entry is ignored (`changed`).
            summary (str): The text the model answered.
    """

    from_: int
    through: int
    key: str
    summary: str

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        through = self.through

        key = self.key

        summary = self.summary

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
                "through": through,
                "key": key,
                "summary": summary,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        from_ = d.pop("from")

        through = d.pop("through")

        key = d.pop("key")

        summary = d.pop("summary")

        plan_summary = cls(
            from_=from_,
            through=through,
            key=key,
            summary=summary,
        )

        return plan_summary
