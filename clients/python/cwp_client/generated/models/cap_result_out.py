from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cap_marker import CapMarker


T = TypeVar("T", bound="CapResultOut")


@_attrs_define
class CapResultOut:
    """The decision for one item, in request order.

    Attributes:
        tool_name (str):
        truncated (bool):
        chars (int): The measured size of the result received.
        max_chars (int): The ceiling applied to this item.
        tool_call_id (None | str | Unset): Echoed; left out when the item had none.
        result (Any | CapMarker | Unset): Not truncated: the value received, unchanged (left out when the item had
            none). Truncated: the marker, as a JSON object.
    """

    tool_name: str
    truncated: bool
    chars: int
    max_chars: int
    tool_call_id: None | str | Unset = UNSET
    result: Any | CapMarker | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cap_marker import CapMarker  # noqa: PLC0415

        tool_name = self.tool_name

        truncated = self.truncated

        chars = self.chars

        max_chars = self.max_chars

        tool_call_id: None | str | Unset
        if isinstance(self.tool_call_id, Unset):
            tool_call_id = UNSET
        else:
            tool_call_id = self.tool_call_id

        result: Any | dict[str, Any] | Unset
        if isinstance(self.result, Unset):
            result = UNSET
        elif isinstance(self.result, CapMarker):
            result = self.result.to_dict()
        else:
            result = self.result

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tool_name": tool_name,
                "truncated": truncated,
                "chars": chars,
                "max_chars": max_chars,
            }
        )
        if tool_call_id is not UNSET:
            field_dict["tool_call_id"] = tool_call_id
        if result is not UNSET:
            field_dict["result"] = result

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cap_marker import CapMarker  # noqa: PLC0415

        d = dict(src_dict)
        tool_name = d.pop("tool_name")

        truncated = d.pop("truncated")

        chars = d.pop("chars")

        max_chars = d.pop("max_chars")

        def _parse_tool_call_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_call_id = _parse_tool_call_id(d.pop("tool_call_id", UNSET))

        def _parse_result(data: object) -> Any | CapMarker | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = CapMarker.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Any | CapMarker | Unset, data)

        result = _parse_result(d.pop("result", UNSET))

        cap_result_out = cls(
            tool_name=tool_name,
            truncated=truncated,
            chars=chars,
            max_chars=max_chars,
            tool_call_id=tool_call_id,
            result=result,
        )

        cap_result_out.additional_properties = d
        return cap_result_out

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
