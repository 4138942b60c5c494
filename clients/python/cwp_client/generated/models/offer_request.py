from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.offer_request_format import OfferRequestFormat
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.offer_request_ledger_type_0_item_type_0 import (
        OfferRequestLedgerType0ItemType0,
    )
    from ..models.offer_request_ledger_type_0_item_type_1 import (
        OfferRequestLedgerType0ItemType1,
    )
    from ..models.offer_request_system_type_1_item import OfferRequestSystemType1Item
    from ..models.offer_request_system_type_3 import OfferRequestSystemType3
    from ..models.previous_batch_item import PreviousBatchItem


T = TypeVar("T", bound="OfferRequest")


@_attrs_define
class OfferRequest:
    """The committed transcript, the findings ledger and the results of this iteration.

    Attributes:
        messages (list[Any]): The transcript, oldest first, in `format`. Native messages are `{"role", "content",
            "tool_calls": [{"id", "name", "arguments"}], "tool_call_id", "tool_name", "injected", "not_dispatched"}`; OpenAI
            Chat Completions messages, Anthropic Messages, OpenAI Responses `input` items, Gemini `contents` and Bedrock
            Converse messages are accepted as they are. Extra fields are kept and returned verbatim. Send the committed
            transcript, `not_dispatched` marks included: a settled message is no result.
        format_ (OfferRequestFormat | Unset): `auto` detects the format from the messages and says which in the
            response; `native`, `openai` (Chat Completions), `anthropic` (Messages), `responses` (OpenAI Responses input
            items), `gemini` (contents) or `bedrock` (Converse messages). Default: OfferRequestFormat.AUTO.
        ledger (list[OfferRequestLedgerType0ItemType0 | OfferRequestLedgerType0ItemType1] | None | Unset): The findings
            ledger, oldest row first; null means []. Standing rows `{"kind": "standing" (or absent), "tool_call_id",
            "standing": "fact" | "open" | "ruled-out" | "noise", "tool_name"?, "ref"?}` are folded (the last row per id
            wins); rows of other kinds are skipped; extra fields are ignored.
        previous_batch (list[PreviousBatchItem] | None | Unset): The results that landed this iteration, read first by
            `known_results`; null means [].
        system (list[Any] | list[OfferRequestSystemType1Item] | None | OfferRequestSystemType3 | str | Unset): The top-
            level system prompt of the formats that keep it outside the messages, in the provider's shape: Anthropic
            `system` (a string or text blocks), Responses `instructions` (a string), Gemini `systemInstruction` (`{"parts":
            [...]}`), Bedrock `system` (blocks). It is outside the plan: never a turn, never evicted; counted in
            `stats.system_chars`. Accepted here, and not read by the offer.
        limit (int | Unset): How many offered ids are listed for the model. Default: 32.
    """

    messages: list[Any]
    format_: OfferRequestFormat | Unset = OfferRequestFormat.AUTO
    ledger: (
        list[OfferRequestLedgerType0ItemType0 | OfferRequestLedgerType0ItemType1]
        | None
        | Unset
    ) = UNSET
    previous_batch: list[PreviousBatchItem] | None | Unset = UNSET
    system: (
        list[Any]
        | list[OfferRequestSystemType1Item]
        | None
        | OfferRequestSystemType3
        | str
        | Unset
    ) = UNSET
    limit: int | Unset = 32

    def to_dict(self) -> dict[str, Any]:
        from ..models.offer_request_ledger_type_0_item_type_0 import (
            OfferRequestLedgerType0ItemType0,  # noqa: PLC0415
        )
        from ..models.offer_request_ledger_type_0_item_type_1 import (
            OfferRequestLedgerType0ItemType1,  # noqa: PLC0415
        )
        from ..models.offer_request_system_type_1_item import (
            OfferRequestSystemType1Item,  # noqa: PLC0415
        )
        from ..models.offer_request_system_type_3 import OfferRequestSystemType3  # noqa: PLC0415
        from ..models.previous_batch_item import PreviousBatchItem  # noqa: PLC0415

        messages = self.messages

        format_: str | Unset = UNSET
        if not isinstance(self.format_, Unset):
            format_ = self.format_.value

        ledger: list[dict[str, Any]] | None | Unset
        if isinstance(self.ledger, Unset):
            ledger = UNSET
        elif isinstance(self.ledger, list):
            ledger = []
            for ledger_type_0_item_data in self.ledger:
                ledger_type_0_item: dict[str, Any]
                if isinstance(
                    ledger_type_0_item_data, OfferRequestLedgerType0ItemType0
                ):
                    ledger_type_0_item = ledger_type_0_item_data.to_dict()
                else:
                    ledger_type_0_item = ledger_type_0_item_data.to_dict()

                ledger.append(ledger_type_0_item)

        else:
            ledger = self.ledger

        previous_batch: list[dict[str, Any]] | None | Unset
        if isinstance(self.previous_batch, Unset):
            previous_batch = UNSET
        elif isinstance(self.previous_batch, list):
            previous_batch = []
            for previous_batch_type_0_item_data in self.previous_batch:
                previous_batch_type_0_item = previous_batch_type_0_item_data.to_dict()
                previous_batch.append(previous_batch_type_0_item)

        else:
            previous_batch = self.previous_batch

        system: dict[str, Any] | list[Any] | list[dict[str, Any]] | None | str | Unset
        if isinstance(self.system, Unset):
            system = UNSET
        elif isinstance(self.system, list):
            system = []
            for system_type_1_item_data in self.system:
                system_type_1_item = system_type_1_item_data.to_dict()
                system.append(system_type_1_item)

        elif isinstance(self.system, list):
            system = []
            for system_type_2_item_data in self.system:
                system_type_2_item: Any
                system_type_2_item = system_type_2_item_data
                system.append(system_type_2_item)

        elif isinstance(self.system, OfferRequestSystemType3):
            system = self.system.to_dict()
        else:
            system = self.system

        limit = self.limit

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "messages": messages,
            }
        )
        if format_ is not UNSET:
            field_dict["format"] = format_
        if ledger is not UNSET:
            field_dict["ledger"] = ledger
        if previous_batch is not UNSET:
            field_dict["previous_batch"] = previous_batch
        if system is not UNSET:
            field_dict["system"] = system
        if limit is not UNSET:
            field_dict["limit"] = limit

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.offer_request_ledger_type_0_item_type_0 import (
            OfferRequestLedgerType0ItemType0,  # noqa: PLC0415
        )
        from ..models.offer_request_ledger_type_0_item_type_1 import (
            OfferRequestLedgerType0ItemType1,  # noqa: PLC0415
        )
        from ..models.offer_request_system_type_1_item import (
            OfferRequestSystemType1Item,  # noqa: PLC0415
        )
        from ..models.offer_request_system_type_3 import OfferRequestSystemType3  # noqa: PLC0415
        from ..models.previous_batch_item import PreviousBatchItem  # noqa: PLC0415

        d = dict(src_dict)
        messages = cast(list[Any], d.pop("messages"))

        _format_ = d.pop("format", UNSET)
        format_: OfferRequestFormat | Unset
        if isinstance(_format_, Unset):
            format_ = UNSET
        else:
            format_ = OfferRequestFormat(_format_)

        def _parse_ledger(
            data: object,
        ) -> (
            list[OfferRequestLedgerType0ItemType0 | OfferRequestLedgerType0ItemType1]
            | None
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                ledger_type_0 = []
                _ledger_type_0 = data
                for ledger_type_0_item_data in _ledger_type_0:

                    def _parse_ledger_type_0_item(
                        data: object,
                    ) -> (
                        OfferRequestLedgerType0ItemType0
                        | OfferRequestLedgerType0ItemType1
                    ):
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            ledger_type_0_item_type_0 = (
                                OfferRequestLedgerType0ItemType0.from_dict(data)
                            )

                            return ledger_type_0_item_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        ledger_type_0_item_type_1 = (
                            OfferRequestLedgerType0ItemType1.from_dict(data)
                        )

                        return ledger_type_0_item_type_1

                    ledger_type_0_item = _parse_ledger_type_0_item(
                        ledger_type_0_item_data
                    )

                    ledger_type_0.append(ledger_type_0_item)

                return ledger_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                list[
                    OfferRequestLedgerType0ItemType0 | OfferRequestLedgerType0ItemType1
                ]
                | None
                | Unset,
                data,
            )

        ledger = _parse_ledger(d.pop("ledger", UNSET))

        def _parse_previous_batch(
            data: object,
        ) -> list[PreviousBatchItem] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                previous_batch_type_0 = []
                _previous_batch_type_0 = data
                for previous_batch_type_0_item_data in _previous_batch_type_0:
                    previous_batch_type_0_item = PreviousBatchItem.from_dict(
                        previous_batch_type_0_item_data
                    )

                    previous_batch_type_0.append(previous_batch_type_0_item)

                return previous_batch_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PreviousBatchItem] | None | Unset, data)

        previous_batch = _parse_previous_batch(d.pop("previous_batch", UNSET))

        def _parse_system(
            data: object,
        ) -> (
            list[Any]
            | list[OfferRequestSystemType1Item]
            | None
            | OfferRequestSystemType3
            | str
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                system_type_1 = []
                _system_type_1 = data
                for system_type_1_item_data in _system_type_1:
                    system_type_1_item = OfferRequestSystemType1Item.from_dict(
                        system_type_1_item_data
                    )

                    system_type_1.append(system_type_1_item)

                return system_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, list):
                    raise TypeError()
                system_type_2 = []
                _system_type_2 = data
                for system_type_2_item_data in _system_type_2:

                    def _parse_system_type_2_item(data: object) -> Any:
                        return cast(Any, data)

                    system_type_2_item = _parse_system_type_2_item(
                        system_type_2_item_data
                    )

                    system_type_2.append(system_type_2_item)

                return system_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                system_type_3 = OfferRequestSystemType3.from_dict(data)

                return system_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                list[Any]
                | list[OfferRequestSystemType1Item]
                | None
                | OfferRequestSystemType3
                | str
                | Unset,
                data,
            )

        system = _parse_system(d.pop("system", UNSET))

        limit = d.pop("limit", UNSET)

        offer_request = cls(
            messages=messages,
            format_=format_,
            ledger=ledger,
            previous_batch=previous_batch,
            system=system,
            limit=limit,
        )

        return offer_request
