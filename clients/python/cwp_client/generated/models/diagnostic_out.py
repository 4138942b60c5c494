from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.diagnostic_out_code import DiagnosticOutCode
from ..types import UNSET, Unset

T = TypeVar("T", bound="DiagnosticOut")


@_attrs_define
class DiagnosticOut:
    """
    Attributes:
        code (DiagnosticOutCode): `orphan-result`, `result-outside-its-turn`, `duplicate-result`, `unanswered-call`,
            `duplicate-call-id`, `empty-message`; `more-diagnostics` closes a list cut at 100.
        message_index (int | None): Caller index of the message the finding is about (null on `more-diagnostics`).
        detail (str): One sentence naming the ids or keys concerned.
    """

    code: DiagnosticOutCode
    message_index: int | None
    detail: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code.value

        message_index: int | None
        message_index = self.message_index

        detail = self.detail

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "message_index": message_index,
                "detail": detail,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        code = DiagnosticOutCode(d.pop("code"))

        def _parse_message_index(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        message_index = _parse_message_index(d.pop("message_index"))

        detail = d.pop("detail")

        diagnostic_out = cls(
            code=code,
            message_index=message_index,
            detail=detail,
        )

        diagnostic_out.additional_properties = d
        return diagnostic_out

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
