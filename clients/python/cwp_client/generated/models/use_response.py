from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.kept_entry import KeptEntry


T = TypeVar("T", bound="UseResponse")


@_attrs_define
class UseResponse:
    """This turn's list without the used pairs; null when nothing is left (clear your copy).

    Attributes:
        kept (list[KeptEntry] | None):
    """

    kept: list[KeptEntry] | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.kept_entry import KeptEntry  # noqa: PLC0415

        kept: list[dict[str, Any]] | None
        if isinstance(self.kept, list):
            kept = []
            for kept_type_0_item_data in self.kept:
                kept_type_0_item = kept_type_0_item_data.to_dict()
                kept.append(kept_type_0_item)

        else:
            kept = self.kept

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kept": kept,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.kept_entry import KeptEntry  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_kept(data: object) -> list[KeptEntry] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                kept_type_0 = []
                _kept_type_0 = data
                for kept_type_0_item_data in _kept_type_0:
                    kept_type_0_item = KeptEntry.from_dict(kept_type_0_item_data)

                    kept_type_0.append(kept_type_0_item)

                return kept_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[KeptEntry] | None, data)

        kept = _parse_kept(d.pop("kept"))

        use_response = cls(
            kept=kept,
        )

        use_response.additional_properties = d
        return use_response

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
