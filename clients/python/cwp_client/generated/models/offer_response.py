from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.known_result_out import KnownResultOut
    from ..models.standing_out import StandingOut


T = TypeVar("T", bound="OfferResponse")


@_attrs_define
class OfferResponse:
    """The offer: which result ids the model may still name, and what each id stands for.

    Attributes:
        offered (list[str]): Every nameable served id, newest first (uncapped).
        listed (list[str]): The first `limit` ids of `offered`.
        omitted (int): How many ids of `offered` are not listed.
        description (str): The sentence that tells the model what `listed` is.
        served (list[str]): Result ids in transcript order, each once.
        undeclared (list[str]): Served ids no standing row names.
        nameable (list[str]): Served ids whose standing is absent, `fact` or `open`, transcript order.
        standings (list[StandingOut]): The ledger fold, in first-naming order.
        known_results (list[KnownResultOut]): The previous batch, then every result; the first entry per id wins.
    """

    offered: list[str]
    listed: list[str]
    omitted: int
    description: str
    served: list[str]
    undeclared: list[str]
    nameable: list[str]
    standings: list[StandingOut]
    known_results: list[KnownResultOut]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.known_result_out import KnownResultOut  # noqa: PLC0415
        from ..models.standing_out import StandingOut  # noqa: PLC0415

        offered = self.offered

        listed = self.listed

        omitted = self.omitted

        description = self.description

        served = self.served

        undeclared = self.undeclared

        nameable = self.nameable

        standings = []
        for standings_item_data in self.standings:
            standings_item = standings_item_data.to_dict()
            standings.append(standings_item)

        known_results = []
        for known_results_item_data in self.known_results:
            known_results_item = known_results_item_data.to_dict()
            known_results.append(known_results_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "offered": offered,
                "listed": listed,
                "omitted": omitted,
                "description": description,
                "served": served,
                "undeclared": undeclared,
                "nameable": nameable,
                "standings": standings,
                "known_results": known_results,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.known_result_out import KnownResultOut  # noqa: PLC0415
        from ..models.standing_out import StandingOut  # noqa: PLC0415

        d = dict(src_dict)
        offered = cast(list[str], d.pop("offered"))

        listed = cast(list[str], d.pop("listed"))

        omitted = d.pop("omitted")

        description = d.pop("description")

        served = cast(list[str], d.pop("served"))

        undeclared = cast(list[str], d.pop("undeclared"))

        nameable = cast(list[str], d.pop("nameable"))

        standings = []
        _standings = d.pop("standings")
        for standings_item_data in _standings:
            standings_item = StandingOut.from_dict(standings_item_data)

            standings.append(standings_item)

        known_results = []
        _known_results = d.pop("known_results")
        for known_results_item_data in _known_results:
            known_results_item = KnownResultOut.from_dict(known_results_item_data)

            known_results.append(known_results_item)

        offer_response = cls(
            offered=offered,
            listed=listed,
            omitted=omitted,
            description=description,
            served=served,
            undeclared=undeclared,
            nameable=nameable,
            standings=standings,
            known_results=known_results,
        )

        offer_response.additional_properties = d
        return offer_response

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
