from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    BinaryIO,
    Generator,
    Literal,
    TextIO,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.anthropic_messages_usage_or_open_ai_responses_usage import (
        AnthropicMessagesUsageOrOpenAIResponsesUsage,
    )
    from ..models.bedrock_converse_usage import BedrockConverseUsage
    from ..models.gemini_usage_metadata import GeminiUsageMetadata
    from ..models.gemini_usage_metadata_in_snake_case import (
        GeminiUsageMetadataInSnakeCase,
    )
    from ..models.open_ai_chat_completions_usage import OpenAIChatCompletionsUsage
    from ..models.the_services_own_counts import TheServicesOwnCounts


T = TypeVar("T", bound="TokenBudgetStrategy")


@_attrs_define
class TokenBudgetStrategy:
    """Engages when the last call's measured input tokens exceed `threshold_tokens`.

    Attributes:
        kind (Literal['token-budget']):
        threshold_tokens (float):
        keep_recent_turns (int | Unset):  Default: 6.
        measured (AnthropicMessagesUsageOrOpenAIResponsesUsage | BedrockConverseUsage | GeminiUsageMetadata |
            GeminiUsageMetadataInSnakeCase | None | OpenAIChatCompletionsUsage | TheServicesOwnCounts | Unset): The last
            call's usage: the service's own counts or the provider's usage object as its SDK returns it (pass
            `response.usage` on unchanged). null: nothing was counted yet, so the strategy does not engage.
    """

    kind: Literal["token-budget"]
    threshold_tokens: float
    keep_recent_turns: int | Unset = 6
    measured: (
        AnthropicMessagesUsageOrOpenAIResponsesUsage
        | BedrockConverseUsage
        | GeminiUsageMetadata
        | GeminiUsageMetadataInSnakeCase
        | None
        | OpenAIChatCompletionsUsage
        | TheServicesOwnCounts
        | Unset
    ) = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.anthropic_messages_usage_or_open_ai_responses_usage import (
            AnthropicMessagesUsageOrOpenAIResponsesUsage,  # noqa: PLC0415
        )
        from ..models.bedrock_converse_usage import BedrockConverseUsage  # noqa: PLC0415
        from ..models.gemini_usage_metadata import GeminiUsageMetadata  # noqa: PLC0415
        from ..models.gemini_usage_metadata_in_snake_case import (
            GeminiUsageMetadataInSnakeCase,  # noqa: PLC0415
        )
        from ..models.open_ai_chat_completions_usage import OpenAIChatCompletionsUsage  # noqa: PLC0415
        from ..models.the_services_own_counts import TheServicesOwnCounts  # noqa: PLC0415

        kind = self.kind

        threshold_tokens = self.threshold_tokens

        keep_recent_turns = self.keep_recent_turns

        measured: dict[str, Any] | None | Unset
        if isinstance(self.measured, Unset):
            measured = UNSET
        elif isinstance(self.measured, TheServicesOwnCounts):
            measured = self.measured.to_dict()
        elif isinstance(self.measured, AnthropicMessagesUsageOrOpenAIResponsesUsage):
            measured = self.measured.to_dict()
        elif isinstance(self.measured, OpenAIChatCompletionsUsage):
            measured = self.measured.to_dict()
        elif isinstance(self.measured, GeminiUsageMetadata):
            measured = self.measured.to_dict()
        elif isinstance(self.measured, GeminiUsageMetadataInSnakeCase):
            measured = self.measured.to_dict()
        elif isinstance(self.measured, BedrockConverseUsage):
            measured = self.measured.to_dict()
        else:
            measured = self.measured

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "threshold_tokens": threshold_tokens,
            }
        )
        if keep_recent_turns is not UNSET:
            field_dict["keep_recent_turns"] = keep_recent_turns
        if measured is not UNSET:
            field_dict["measured"] = measured

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.anthropic_messages_usage_or_open_ai_responses_usage import (
            AnthropicMessagesUsageOrOpenAIResponsesUsage,  # noqa: PLC0415
        )
        from ..models.bedrock_converse_usage import BedrockConverseUsage  # noqa: PLC0415
        from ..models.gemini_usage_metadata import GeminiUsageMetadata  # noqa: PLC0415
        from ..models.gemini_usage_metadata_in_snake_case import (
            GeminiUsageMetadataInSnakeCase,  # noqa: PLC0415
        )
        from ..models.open_ai_chat_completions_usage import OpenAIChatCompletionsUsage  # noqa: PLC0415
        from ..models.the_services_own_counts import TheServicesOwnCounts  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["token-budget"], d.pop("kind"))
        if kind != "token-budget":
            raise ValueError(f"kind must match const 'token-budget', got '{kind}'")

        threshold_tokens = d.pop("threshold_tokens")

        keep_recent_turns = d.pop("keep_recent_turns", UNSET)

        def _parse_measured(
            data: object,
        ) -> (
            AnthropicMessagesUsageOrOpenAIResponsesUsage
            | BedrockConverseUsage
            | GeminiUsageMetadata
            | GeminiUsageMetadataInSnakeCase
            | None
            | OpenAIChatCompletionsUsage
            | TheServicesOwnCounts
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_measured_the_services_own_counts = (
                    TheServicesOwnCounts.from_dict(data)
                )

                return componentsschemas_measured_the_services_own_counts
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_measured_anthropic_messages_usage_or_open_ai_responses_usage = AnthropicMessagesUsageOrOpenAIResponsesUsage.from_dict(
                    data
                )

                return componentsschemas_measured_anthropic_messages_usage_or_open_ai_responses_usage
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_measured_open_ai_chat_completions_usage = (
                    OpenAIChatCompletionsUsage.from_dict(data)
                )

                return componentsschemas_measured_open_ai_chat_completions_usage
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_measured_gemini_usage_metadata = (
                    GeminiUsageMetadata.from_dict(data)
                )

                return componentsschemas_measured_gemini_usage_metadata
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_measured_gemini_usage_metadata_in_snake_case = (
                    GeminiUsageMetadataInSnakeCase.from_dict(data)
                )

                return componentsschemas_measured_gemini_usage_metadata_in_snake_case
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_measured_bedrock_converse_usage = (
                    BedrockConverseUsage.from_dict(data)
                )

                return componentsschemas_measured_bedrock_converse_usage
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                AnthropicMessagesUsageOrOpenAIResponsesUsage
                | BedrockConverseUsage
                | GeminiUsageMetadata
                | GeminiUsageMetadataInSnakeCase
                | None
                | OpenAIChatCompletionsUsage
                | TheServicesOwnCounts
                | Unset,
                data,
            )

        measured = _parse_measured(d.pop("measured", UNSET))

        token_budget_strategy = cls(
            kind=kind,
            threshold_tokens=threshold_tokens,
            keep_recent_turns=keep_recent_turns,
            measured=measured,
        )

        return token_budget_strategy
