from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.problem_item import ProblemItem


T = TypeVar("T", bound="Problem")


@_attrs_define
class Problem:
    """An RFC 9457 problem details object.

    Attributes:
        type_ (str): A URI naming the kind of problem.
        title (str): A short summary of the kind of problem.
        status (int): The HTTP status code.
        detail (str): What went wrong with this request.
        errors (list[ProblemItem]): The field errors found, in the order found: at most 100 (may be empty).
        instance (str): The request id (also in the X-Request-ID header).
        errors_left_out (int | None | Unset): Present only when more than 100 errors were found: how many were left out
            of `errors` (only counted, never listed).
    """

    type_: str
    title: str
    status: int
    detail: str
    errors: list[ProblemItem]
    instance: str
    errors_left_out: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.problem_item import ProblemItem  # noqa: PLC0415

        type_ = self.type_

        title = self.title

        status = self.status

        detail = self.detail

        errors = []
        for errors_item_data in self.errors:
            errors_item = errors_item_data.to_dict()
            errors.append(errors_item)

        instance = self.instance

        errors_left_out: int | None | Unset
        if isinstance(self.errors_left_out, Unset):
            errors_left_out = UNSET
        else:
            errors_left_out = self.errors_left_out

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "title": title,
                "status": status,
                "detail": detail,
                "errors": errors,
                "instance": instance,
            }
        )
        if errors_left_out is not UNSET:
            field_dict["errors_left_out"] = errors_left_out

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.problem_item import ProblemItem  # noqa: PLC0415

        d = dict(src_dict)
        type_ = d.pop("type")

        title = d.pop("title")

        status = d.pop("status")

        detail = d.pop("detail")

        errors = []
        _errors = d.pop("errors")
        for errors_item_data in _errors:
            errors_item = ProblemItem.from_dict(errors_item_data)

            errors.append(errors_item)

        instance = d.pop("instance")

        def _parse_errors_left_out(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        errors_left_out = _parse_errors_left_out(d.pop("errors_left_out", UNSET))

        problem = cls(
            type_=type_,
            title=title,
            status=status,
            detail=detail,
            errors=errors,
            instance=instance,
            errors_left_out=errors_left_out,
        )

        problem.additional_properties = d
        return problem

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
