from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.last_tool_result_block import LastToolResultBlock
    from ..models.ledger_fact_block import LedgerFactBlock


T = TypeVar("T", bound="PinsOut")


@_attrs_define
class PinsOut:
    """
    Attributes:
        last_tool_result (LastToolResultBlock | None):
        ledger_fact (LedgerFactBlock | None):
    """

    last_tool_result: LastToolResultBlock | None
    ledger_fact: LedgerFactBlock | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.last_tool_result_block import LastToolResultBlock  # noqa: PLC0415
        from ..models.ledger_fact_block import LedgerFactBlock  # noqa: PLC0415

        last_tool_result: dict[str, Any] | None
        if isinstance(self.last_tool_result, LastToolResultBlock):
            last_tool_result = self.last_tool_result.to_dict()
        else:
            last_tool_result = self.last_tool_result

        ledger_fact: dict[str, Any] | None
        if isinstance(self.ledger_fact, LedgerFactBlock):
            ledger_fact = self.ledger_fact.to_dict()
        else:
            ledger_fact = self.ledger_fact

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "last_tool_result": last_tool_result,
                "ledger_fact": ledger_fact,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.last_tool_result_block import LastToolResultBlock  # noqa: PLC0415
        from ..models.ledger_fact_block import LedgerFactBlock  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_last_tool_result(data: object) -> LastToolResultBlock | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                last_tool_result_type_0 = LastToolResultBlock.from_dict(data)

                return last_tool_result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LastToolResultBlock | None, data)

        last_tool_result = _parse_last_tool_result(d.pop("last_tool_result"))

        def _parse_ledger_fact(data: object) -> LedgerFactBlock | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ledger_fact_type_0 = LedgerFactBlock.from_dict(data)

                return ledger_fact_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LedgerFactBlock | None, data)

        ledger_fact = _parse_ledger_fact(d.pop("ledger_fact"))

        pins_out = cls(
            last_tool_result=last_tool_result,
            ledger_fact=ledger_fact,
        )

        pins_out.additional_properties = d
        return pins_out

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
