from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.summary_ignored_out_reason import SummaryIgnoredOutReason
from ..types import UNSET, Unset

T = TypeVar("T", bound="SummaryIgnoredOut")


@_attrs_define
class SummaryIgnoredOut:
    """
    Attributes:
        index (int): Index into `summaries`.
        reason (SummaryIgnoredOutReason):
    """

    index: int
    reason: SummaryIgnoredOutReason
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        reason = self.reason.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        index = d.pop("index")

        reason = SummaryIgnoredOutReason(d.pop("reason"))

        summary_ignored_out = cls(
            index=index,
            reason=reason,
        )

        summary_ignored_out.additional_properties = d
        return summary_ignored_out

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
