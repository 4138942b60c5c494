from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.plan_cap_max_chars_by_tool_type_0 import PlanCapMaxCharsByToolType0


T = TypeVar("T", bound="PlanCap")


@_attrs_define
class PlanCap:
    """The plan's `cap` (docs/rules.md#shaping): a result whose text is over its ceiling is
    replaced by the cap's marker, written as compact JSON.

        Attributes:
            max_chars (int): The ceiling on one result's text, in characters (Unicode code points).
            max_chars_by_tool (None | PlanCapMaxCharsByToolType0 | Unset): Per-tool ceilings overriding `max_chars` (the
                result's tool name, exact); null means {}, as on `POST /v1/tool-results/cap`.
    """

    max_chars: int
    max_chars_by_tool: None | PlanCapMaxCharsByToolType0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.plan_cap_max_chars_by_tool_type_0 import (
            PlanCapMaxCharsByToolType0,  # noqa: PLC0415
        )

        max_chars = self.max_chars

        max_chars_by_tool: dict[str, Any] | None | Unset
        if isinstance(self.max_chars_by_tool, Unset):
            max_chars_by_tool = UNSET
        elif isinstance(self.max_chars_by_tool, PlanCapMaxCharsByToolType0):
            max_chars_by_tool = self.max_chars_by_tool.to_dict()
        else:
            max_chars_by_tool = self.max_chars_by_tool

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "max_chars": max_chars,
            }
        )
        if max_chars_by_tool is not UNSET:
            field_dict["max_chars_by_tool"] = max_chars_by_tool

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plan_cap_max_chars_by_tool_type_0 import (
            PlanCapMaxCharsByToolType0,  # noqa: PLC0415
        )

        d = dict(src_dict)
        max_chars = d.pop("max_chars")

        def _parse_max_chars_by_tool(
            data: object,
        ) -> None | PlanCapMaxCharsByToolType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                max_chars_by_tool_type_0 = PlanCapMaxCharsByToolType0.from_dict(data)

                return max_chars_by_tool_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanCapMaxCharsByToolType0 | Unset, data)

        max_chars_by_tool = _parse_max_chars_by_tool(d.pop("max_chars_by_tool", UNSET))

        plan_cap = cls(
            max_chars=max_chars,
            max_chars_by_tool=max_chars_by_tool,
        )

        return plan_cap
