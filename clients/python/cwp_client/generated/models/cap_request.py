from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cap_item import CapItem
    from ..models.cap_request_max_chars_by_tool_type_0 import (
        CapRequestMaxCharsByToolType0,
    )


T = TypeVar("T", bound="CapRequest")


@_attrs_define
class CapRequest:
    """The ceilings and the results to measure against them.

    Attributes:
        max_chars (int): The ceiling on ONE result, in characters (Unicode code points). `200.0` and `2e2` mean 200.
        results (list[CapItem]): The results to measure, each independently, in order: at most 10,000 by default
            (`CWP_MAX_LIST_ITEMS`).
        max_chars_by_tool (CapRequestMaxCharsByToolType0 | None | Unset): Per-tool ceilings overriding `max_chars`
            (exact, case-sensitive tool name); null means {}. Every value follows the rule of `max_chars`.
    """

    max_chars: int
    results: list[CapItem]
    max_chars_by_tool: CapRequestMaxCharsByToolType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.cap_item import CapItem  # noqa: PLC0415
        from ..models.cap_request_max_chars_by_tool_type_0 import (
            CapRequestMaxCharsByToolType0,  # noqa: PLC0415
        )

        max_chars = self.max_chars

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        max_chars_by_tool: dict[str, Any] | None | Unset
        if isinstance(self.max_chars_by_tool, Unset):
            max_chars_by_tool = UNSET
        elif isinstance(self.max_chars_by_tool, CapRequestMaxCharsByToolType0):
            max_chars_by_tool = self.max_chars_by_tool.to_dict()
        else:
            max_chars_by_tool = self.max_chars_by_tool

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "max_chars": max_chars,
                "results": results,
            }
        )
        if max_chars_by_tool is not UNSET:
            field_dict["max_chars_by_tool"] = max_chars_by_tool

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cap_item import CapItem  # noqa: PLC0415
        from ..models.cap_request_max_chars_by_tool_type_0 import (
            CapRequestMaxCharsByToolType0,  # noqa: PLC0415
        )

        d = dict(src_dict)
        max_chars = d.pop("max_chars")

        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = CapItem.from_dict(results_item_data)

            results.append(results_item)

        def _parse_max_chars_by_tool(
            data: object,
        ) -> CapRequestMaxCharsByToolType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                max_chars_by_tool_type_0 = CapRequestMaxCharsByToolType0.from_dict(data)

                return max_chars_by_tool_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CapRequestMaxCharsByToolType0 | None | Unset, data)

        max_chars_by_tool = _parse_max_chars_by_tool(d.pop("max_chars_by_tool", UNSET))

        cap_request = cls(
            max_chars=max_chars,
            results=results,
            max_chars_by_tool=max_chars_by_tool,
        )

        return cap_request
