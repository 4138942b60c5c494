from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PlanRecall")


@_attrs_define
class PlanRecall:
    """The plan's `recall` (docs/rules.md#the-recall-option): the window's texts name a tool the
    model can call to get back what the plan took out, and the answer declares it
    (`recall_tool`). `{}` is all defaults.

        Attributes:
            tool_name (str | Unset): The recall tool's name: 1 to 64 characters, a letter or `_` first, then letters,
                digits, `_` or `-`. Default: 'context_recall'.
    """

    tool_name: str | Unset = "context_recall"

    def to_dict(self) -> dict[str, Any]:
        tool_name = self.tool_name

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if tool_name is not UNSET:
            field_dict["tool_name"] = tool_name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tool_name = d.pop("tool_name", UNSET)

        plan_recall = cls(
            tool_name=tool_name,
        )

        return plan_recall
