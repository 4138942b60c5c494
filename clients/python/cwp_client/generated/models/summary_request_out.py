from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.summary_request_out_request import SummaryRequestOutRequest


T = TypeVar("T", bound="SummaryRequestOut")


@_attrs_define
class SummaryRequestOut:
    """
    Attributes:
        from_ (int): The first caller message to summarize.
        through (int): The last caller message to summarize (included).
        key (str): Send it back with `from`, `through` and the text in `summaries`.
        request (SummaryRequestOutRequest): The model request in the caller's format (`messages`, or `input` /
            `contents`, with the system prompt under the format's own key): the window sent before, up to `through`, and the
            instruction. Send it as is, with the same tools and settings.
    """

    from_: int
    through: int
    key: str
    request: SummaryRequestOutRequest
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.summary_request_out_request import SummaryRequestOutRequest  # noqa: PLC0415

        from_ = self.from_

        through = self.through

        key = self.key

        request = self.request.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "through": through,
                "key": key,
                "request": request,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.summary_request_out_request import SummaryRequestOutRequest  # noqa: PLC0415

        d = dict(src_dict)
        from_ = d.pop("from")

        through = d.pop("through")

        key = d.pop("key")

        request = SummaryRequestOutRequest.from_dict(d.pop("request"))

        summary_request_out = cls(
            from_=from_,
            through=through,
            key=key,
            request=request,
        )

        summary_request_out.additional_properties = d
        return summary_request_out

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
