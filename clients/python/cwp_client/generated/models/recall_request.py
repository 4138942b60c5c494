from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.recall_request_format import RecallRequestFormat
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.recall_request_system_type_1_item import RecallRequestSystemType1Item
    from ..models.recall_request_system_type_3 import RecallRequestSystemType3


T = TypeVar("T", bound="RecallRequest")


@_attrs_define
class RecallRequest:
    """The whole history and the recall call's arguments: `ref` or `query`, and `page`.

    Attributes:
        messages (list[Any]): The transcript, oldest first, in `format`. Native messages are `{"role", "content",
            "tool_calls": [{"id", "name", "arguments"}], "tool_call_id", "tool_name", "injected", "not_dispatched"}`; OpenAI
            Chat Completions messages, Anthropic Messages, OpenAI Responses `input` items, Gemini `contents` and Bedrock
            Converse messages are accepted as they are. Extra fields are kept and returned verbatim. Send the whole history
            the agent holds, never a planned window (which holds the placeholders).
        format_ (RecallRequestFormat | Unset): `auto` detects the format from the messages and says which in the
            response; `native`, `openai` (Chat Completions), `anthropic` (Messages), `responses` (OpenAI Responses input
            items), `gemini` (contents) or `bedrock` (Converse messages). Default: RecallRequestFormat.AUTO.
        system (list[Any] | list[RecallRequestSystemType1Item] | None | RecallRequestSystemType3 | str | Unset): The
            top-level system prompt of the formats that keep it outside the messages, in the provider's shape: Anthropic
            `system` (a string or text blocks), Responses `instructions` (a string), Gemini `systemInstruction` (`{"parts":
            [...]}`), Bedrock `system` (blocks). It is outside the plan: never a turn, never evicted; counted in
            `stats.system_chars`. Accepted here, and not searched.
        ref (None | str | Unset): A `tool_call_id`: every result answering that call, whole. Exactly one of `ref` and
            `query` is sent, a non-empty string (null is absent).
        query (None | str | Unset): Words or identifiers (a path, an id, a number) to search every earlier message but
            the system prompt for. Its terms are the runs of `A-Z a-z 0-9 _ . / : @ # -`, trimmed of `. : / -` at both ends,
            lowercased; a run of 3 characters or more, or 2 holding a digit.
        page (int | Unset): Which page of the answer, from 1. Default: 1.
        max_chars (int | Unset): The characters of one page (256 to 100,000). Default: 8000.
    """

    messages: list[Any]
    format_: RecallRequestFormat | Unset = RecallRequestFormat.AUTO
    system: (
        list[Any]
        | list[RecallRequestSystemType1Item]
        | None
        | RecallRequestSystemType3
        | str
        | Unset
    ) = UNSET
    ref: None | str | Unset = UNSET
    query: None | str | Unset = UNSET
    page: int | Unset = 1
    max_chars: int | Unset = 8000

    def to_dict(self) -> dict[str, Any]:
        from ..models.recall_request_system_type_1_item import (
            RecallRequestSystemType1Item,  # noqa: PLC0415
        )
        from ..models.recall_request_system_type_3 import RecallRequestSystemType3  # noqa: PLC0415

        messages = self.messages

        format_: str | Unset = UNSET
        if not isinstance(self.format_, Unset):
            format_ = self.format_.value

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

        elif isinstance(self.system, RecallRequestSystemType3):
            system = self.system.to_dict()
        else:
            system = self.system

        ref: None | str | Unset
        if isinstance(self.ref, Unset):
            ref = UNSET
        else:
            ref = self.ref

        query: None | str | Unset
        if isinstance(self.query, Unset):
            query = UNSET
        else:
            query = self.query

        page = self.page

        max_chars = self.max_chars

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "messages": messages,
            }
        )
        if format_ is not UNSET:
            field_dict["format"] = format_
        if system is not UNSET:
            field_dict["system"] = system
        if ref is not UNSET:
            field_dict["ref"] = ref
        if query is not UNSET:
            field_dict["query"] = query
        if page is not UNSET:
            field_dict["page"] = page
        if max_chars is not UNSET:
            field_dict["max_chars"] = max_chars

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.recall_request_system_type_1_item import (
            RecallRequestSystemType1Item,  # noqa: PLC0415
        )
        from ..models.recall_request_system_type_3 import RecallRequestSystemType3  # noqa: PLC0415

        d = dict(src_dict)
        messages = cast(list[Any], d.pop("messages"))

        _format_ = d.pop("format", UNSET)
        format_: RecallRequestFormat | Unset
        if isinstance(_format_, Unset):
            format_ = UNSET
        else:
            format_ = RecallRequestFormat(_format_)

        def _parse_system(
            data: object,
        ) -> (
            list[Any]
            | list[RecallRequestSystemType1Item]
            | None
            | RecallRequestSystemType3
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
                    system_type_1_item = RecallRequestSystemType1Item.from_dict(
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
                system_type_3 = RecallRequestSystemType3.from_dict(data)

                return system_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                list[Any]
                | list[RecallRequestSystemType1Item]
                | None
                | RecallRequestSystemType3
                | str
                | Unset,
                data,
            )

        system = _parse_system(d.pop("system", UNSET))

        def _parse_ref(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ref = _parse_ref(d.pop("ref", UNSET))

        def _parse_query(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        query = _parse_query(d.pop("query", UNSET))

        page = d.pop("page", UNSET)

        max_chars = d.pop("max_chars", UNSET)

        recall_request = cls(
            messages=messages,
            format_=format_,
            system=system,
            ref=ref,
            query=query,
            page=page,
            max_chars=max_chars,
        )

        return recall_request
