from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RecallResponse")


@_attrs_define
class RecallResponse:
    """One page of the text found.

    Attributes:
        found (bool): Whether the ref named a result, or the query matched a message.
        text (str): Page `page` of the text: the result(s) of `ref` joined by a newline; for a query, each matching
            message (at most 20, most terms first, then newest) as a header line and its text (600 characters around the
            first match when longer, `…` where cut), joined by a blank line; else a sentence saying what was not found. ""
            past the last page.
        page (int): The page given, as asked.
        pages (int): How many pages the text fills (at least 1).
        hits (int | None): For a query, how many messages matched (all of them, not only the 20 written); null for a
            ref.
    """

    found: bool
    text: str
    page: int
    pages: int
    hits: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        found = self.found

        text = self.text

        page = self.page

        pages = self.pages

        hits: int | None
        hits = self.hits

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "found": found,
                "text": text,
                "page": page,
                "pages": pages,
                "hits": hits,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        found = d.pop("found")

        text = d.pop("text")

        page = d.pop("page")

        pages = d.pop("pages")

        def _parse_hits(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        hits = _parse_hits(d.pop("hits"))

        recall_response = cls(
            found=found,
            text=text,
            page=page,
            pages=pages,
            hits=hits,
        )

        recall_response.additional_properties = d
        return recall_response

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
