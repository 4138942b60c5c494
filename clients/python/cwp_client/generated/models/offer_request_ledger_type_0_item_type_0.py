from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.offer_request_ledger_type_0_item_type_0_kind_type_1 import (
    OfferRequestLedgerType0ItemType0KindType1,
)
from ..models.offer_request_ledger_type_0_item_type_0_standing import (
    OfferRequestLedgerType0ItemType0Standing,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="OfferRequestLedgerType0ItemType0")


@_attrs_define
class OfferRequestLedgerType0ItemType0:
    """A standing row (`kind` absent, null or `standing`): folded; the last row per id wins. Extra fields are ignored.

    Attributes:
        tool_call_id (str):
        standing (OfferRequestLedgerType0ItemType0Standing):
        kind (None | OfferRequestLedgerType0ItemType0KindType1 | Unset):
        tool_name (None | str | Unset):
        ref (None | str | Unset):
    """

    tool_call_id: str
    standing: OfferRequestLedgerType0ItemType0Standing
    kind: None | OfferRequestLedgerType0ItemType0KindType1 | Unset = UNSET
    tool_name: None | str | Unset = UNSET
    ref: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tool_call_id = self.tool_call_id

        standing = self.standing.value

        kind: None | str | Unset
        if isinstance(self.kind, Unset):
            kind = UNSET
        elif isinstance(self.kind, OfferRequestLedgerType0ItemType0KindType1):
            kind = self.kind.value
        else:
            kind = self.kind

        tool_name: None | str | Unset
        if isinstance(self.tool_name, Unset):
            tool_name = UNSET
        else:
            tool_name = self.tool_name

        ref: None | str | Unset
        if isinstance(self.ref, Unset):
            ref = UNSET
        else:
            ref = self.ref

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tool_call_id": tool_call_id,
                "standing": standing,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if tool_name is not UNSET:
            field_dict["tool_name"] = tool_name
        if ref is not UNSET:
            field_dict["ref"] = ref

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        tool_call_id = d.pop("tool_call_id")

        standing = OfferRequestLedgerType0ItemType0Standing(d.pop("standing"))

        def _parse_kind(
            data: object,
        ) -> None | OfferRequestLedgerType0ItemType0KindType1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                kind_type_1 = OfferRequestLedgerType0ItemType0KindType1(data)

                return kind_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OfferRequestLedgerType0ItemType0KindType1 | Unset, data)

        kind = _parse_kind(d.pop("kind", UNSET))

        def _parse_tool_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_name = _parse_tool_name(d.pop("tool_name", UNSET))

        def _parse_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ref = _parse_ref(d.pop("ref", UNSET))

        offer_request_ledger_type_0_item_type_0 = cls(
            tool_call_id=tool_call_id,
            standing=standing,
            kind=kind,
            tool_name=tool_name,
            ref=ref,
        )

        offer_request_ledger_type_0_item_type_0.additional_properties = d
        return offer_request_ledger_type_0_item_type_0

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
