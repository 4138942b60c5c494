from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.notice_out_rung import NoticeOutRung
from ..types import UNSET, Unset

T = TypeVar("T", bound="NoticeOut")


@_attrs_define
class NoticeOut:
    """
    Attributes:
        content (str):
        window_index (int): The notice's position in the new window.
        rung (NoticeOutRung):
    """

    content: str
    window_index: int
    rung: NoticeOutRung
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        window_index = self.window_index

        rung = self.rung.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "window_index": window_index,
                "rung": rung,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        content = d.pop("content")

        window_index = d.pop("window_index")

        rung = NoticeOutRung(d.pop("rung"))

        notice_out = cls(
            content=content,
            window_index=window_index,
            rung=rung,
        )

        notice_out.additional_properties = d
        return notice_out

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
