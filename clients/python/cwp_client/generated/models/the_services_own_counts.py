from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TheServicesOwnCounts")


@_attrs_define
class TheServicesOwnCounts:
    """The service's own counts. Recognised by input_tokens and output_tokens. Both counts are required and read as given;
    any other key is refused.

        Attributes:
            input_tokens (int):
            output_tokens (int):
    """

    input_tokens: int
    output_tokens: int

    def to_dict(self) -> dict[str, Any]:
        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        input_tokens = d.pop("input_tokens")

        output_tokens = d.pop("output_tokens")

        the_services_own_counts = cls(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
        )

        return the_services_own_counts
