from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.shaped_out_action import ShapedOutAction
from ..types import UNSET, Unset

T = TypeVar("T", bound="ShapedOut")


@_attrs_define
class ShapedOut:
    """
    Attributes:
        message_index (int): Caller index of the result's message.
        window_index (int | None): Its position in the new window; null when it was evicted.
        tool_call_id (None | str): The result's call id; null on an `image-cleared` or `thinking-cleared` entry.
        action (ShapedOutAction):
        chars_before (int):
        chars_after (int):
        images (int | None | Unset): On an `image-cleared` entry only: how many of the message's images were replaced by
            `[image removed from the context window]`. (A `thinking-cleared` entry's `chars_before` is the visible reasoning
            text removed, 0 for redacted or encrypted.)
    """

    message_index: int
    window_index: int | None
    tool_call_id: None | str
    action: ShapedOutAction
    chars_before: int
    chars_after: int
    images: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_index = self.message_index

        window_index: int | None
        window_index = self.window_index

        tool_call_id: None | str
        tool_call_id = self.tool_call_id

        action = self.action.value

        chars_before = self.chars_before

        chars_after = self.chars_after

        images: int | None | Unset
        if isinstance(self.images, Unset):
            images = UNSET
        else:
            images = self.images

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message_index": message_index,
                "window_index": window_index,
                "tool_call_id": tool_call_id,
                "action": action,
                "chars_before": chars_before,
                "chars_after": chars_after,
            }
        )
        if images is not UNSET:
            field_dict["images"] = images

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        message_index = d.pop("message_index")

        def _parse_window_index(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        window_index = _parse_window_index(d.pop("window_index"))

        def _parse_tool_call_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        tool_call_id = _parse_tool_call_id(d.pop("tool_call_id"))

        action = ShapedOutAction(d.pop("action"))

        chars_before = d.pop("chars_before")

        chars_after = d.pop("chars_after")

        def _parse_images(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        images = _parse_images(d.pop("images", UNSET))

        shaped_out = cls(
            message_index=message_index,
            window_index=window_index,
            tool_call_id=tool_call_id,
            action=action,
            chars_before=chars_before,
            chars_after=chars_after,
            images=images,
        )

        shaped_out.additional_properties = d
        return shaped_out

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
