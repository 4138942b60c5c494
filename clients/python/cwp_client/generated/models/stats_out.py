from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="StatsOut")


@_attrs_define
class StatsOut:
    """
    Attributes:
        messages_before (int):
        messages_after (int):
        turns_before (int):
        turns_after (int):
        chars_before (int): Characters of the transcript as sent.
        chars_after (int):
        removed_message_count (int):
        chars_shaped (int | None | Unset): With `collapse`, `cap` or `clear` only: characters of the shaped transcript,
            before removal.
        system_chars (int | None | Unset): Formats with a top-level system prompt only (anthropic, responses, gemini,
            bedrock): its characters.
        tokenizer (None | str | Unset): With a tokenizer only: its name.
        tokens_before (int | None | Unset): With a tokenizer only: the transcript as sent.
        tokens_shaped (int | None | Unset): With a tokenizer and `collapse`, `cap` or `clear`: the shaped transcript,
            before removal.
        tokens_after (int | None | Unset): With a tokenizer only: the window, notice included.
        tokens_counted (int | None | Unset): With a tokenizer only: `system_tokens` + the window, unscaled; what
            `calibration.counted` takes back.
        system_tokens (int | None | Unset): With a tokenizer, for formats with a top-level system prompt: its tokens (0
            when none was sent).
    """

    messages_before: int
    messages_after: int
    turns_before: int
    turns_after: int
    chars_before: int
    chars_after: int
    removed_message_count: int
    chars_shaped: int | None | Unset = UNSET
    system_chars: int | None | Unset = UNSET
    tokenizer: None | str | Unset = UNSET
    tokens_before: int | None | Unset = UNSET
    tokens_shaped: int | None | Unset = UNSET
    tokens_after: int | None | Unset = UNSET
    tokens_counted: int | None | Unset = UNSET
    system_tokens: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        messages_before = self.messages_before

        messages_after = self.messages_after

        turns_before = self.turns_before

        turns_after = self.turns_after

        chars_before = self.chars_before

        chars_after = self.chars_after

        removed_message_count = self.removed_message_count

        chars_shaped: int | None | Unset
        if isinstance(self.chars_shaped, Unset):
            chars_shaped = UNSET
        else:
            chars_shaped = self.chars_shaped

        system_chars: int | None | Unset
        if isinstance(self.system_chars, Unset):
            system_chars = UNSET
        else:
            system_chars = self.system_chars

        tokenizer: None | str | Unset
        if isinstance(self.tokenizer, Unset):
            tokenizer = UNSET
        else:
            tokenizer = self.tokenizer

        tokens_before: int | None | Unset
        if isinstance(self.tokens_before, Unset):
            tokens_before = UNSET
        else:
            tokens_before = self.tokens_before

        tokens_shaped: int | None | Unset
        if isinstance(self.tokens_shaped, Unset):
            tokens_shaped = UNSET
        else:
            tokens_shaped = self.tokens_shaped

        tokens_after: int | None | Unset
        if isinstance(self.tokens_after, Unset):
            tokens_after = UNSET
        else:
            tokens_after = self.tokens_after

        tokens_counted: int | None | Unset
        if isinstance(self.tokens_counted, Unset):
            tokens_counted = UNSET
        else:
            tokens_counted = self.tokens_counted

        system_tokens: int | None | Unset
        if isinstance(self.system_tokens, Unset):
            system_tokens = UNSET
        else:
            system_tokens = self.system_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "messages_before": messages_before,
                "messages_after": messages_after,
                "turns_before": turns_before,
                "turns_after": turns_after,
                "chars_before": chars_before,
                "chars_after": chars_after,
                "removed_message_count": removed_message_count,
            }
        )
        if chars_shaped is not UNSET:
            field_dict["chars_shaped"] = chars_shaped
        if system_chars is not UNSET:
            field_dict["system_chars"] = system_chars
        if tokenizer is not UNSET:
            field_dict["tokenizer"] = tokenizer
        if tokens_before is not UNSET:
            field_dict["tokens_before"] = tokens_before
        if tokens_shaped is not UNSET:
            field_dict["tokens_shaped"] = tokens_shaped
        if tokens_after is not UNSET:
            field_dict["tokens_after"] = tokens_after
        if tokens_counted is not UNSET:
            field_dict["tokens_counted"] = tokens_counted
        if system_tokens is not UNSET:
            field_dict["system_tokens"] = system_tokens

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        messages_before = d.pop("messages_before")

        messages_after = d.pop("messages_after")

        turns_before = d.pop("turns_before")

        turns_after = d.pop("turns_after")

        chars_before = d.pop("chars_before")

        chars_after = d.pop("chars_after")

        removed_message_count = d.pop("removed_message_count")

        def _parse_chars_shaped(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        chars_shaped = _parse_chars_shaped(d.pop("chars_shaped", UNSET))

        def _parse_system_chars(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        system_chars = _parse_system_chars(d.pop("system_chars", UNSET))

        def _parse_tokenizer(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tokenizer = _parse_tokenizer(d.pop("tokenizer", UNSET))

        def _parse_tokens_before(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tokens_before = _parse_tokens_before(d.pop("tokens_before", UNSET))

        def _parse_tokens_shaped(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tokens_shaped = _parse_tokens_shaped(d.pop("tokens_shaped", UNSET))

        def _parse_tokens_after(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tokens_after = _parse_tokens_after(d.pop("tokens_after", UNSET))

        def _parse_tokens_counted(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        tokens_counted = _parse_tokens_counted(d.pop("tokens_counted", UNSET))

        def _parse_system_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        system_tokens = _parse_system_tokens(d.pop("system_tokens", UNSET))

        stats_out = cls(
            messages_before=messages_before,
            messages_after=messages_after,
            turns_before=turns_before,
            turns_after=turns_after,
            chars_before=chars_before,
            chars_after=chars_after,
            removed_message_count=removed_message_count,
            chars_shaped=chars_shaped,
            system_chars=system_chars,
            tokenizer=tokenizer,
            tokens_before=tokens_before,
            tokens_shaped=tokens_shaped,
            tokens_after=tokens_after,
            tokens_counted=tokens_counted,
            system_tokens=system_tokens,
        )

        stats_out.additional_properties = d
        return stats_out

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
