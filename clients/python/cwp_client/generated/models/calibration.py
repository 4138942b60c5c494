from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

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


T = TypeVar("T", bound="Calibration")


@_attrs_define
class Calibration:
    """Scale every count to what the provider measured for the window last sent
    (docs/rules.md#calibration):
    `scale = (input_tokens(measured) − reserve_tokens) / counted`, at least 0.1.

        Attributes:
            counted (int): The `stats.tokens_counted` this service returned for the window last sent.
            measured (AnthropicMessagesUsageOrOpenAIResponsesUsage | BedrockConverseUsage | GeminiUsageMetadata |
                GeminiUsageMetadataInSnakeCase | OpenAIChatCompletionsUsage | TheServicesOwnCounts): The provider's usage report
                for the last model call: the service's own counts, or the
                provider's usage object exactly as its SDK returns it. The first shape whose keys the object
                has is the one it is read as; the counts it yields are not both 0.
    """

    counted: int
    measured: (
        AnthropicMessagesUsageOrOpenAIResponsesUsage
        | BedrockConverseUsage
        | GeminiUsageMetadata
        | GeminiUsageMetadataInSnakeCase
        | OpenAIChatCompletionsUsage
        | TheServicesOwnCounts
    )

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

        counted = self.counted

        measured: dict[str, Any]
        if isinstance(self.measured, TheServicesOwnCounts):
            measured = self.measured.to_dict()
        elif isinstance(self.measured, AnthropicMessagesUsageOrOpenAIResponsesUsage):
            measured = self.measured.to_dict()
        elif isinstance(self.measured, OpenAIChatCompletionsUsage):
            measured = self.measured.to_dict()
        elif isinstance(self.measured, GeminiUsageMetadata):
            measured = self.measured.to_dict()
        elif isinstance(self.measured, GeminiUsageMetadataInSnakeCase):
            measured = self.measured.to_dict()
        else:
            measured = self.measured.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "counted": counted,
                "measured": measured,
            }
        )

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
        counted = d.pop("counted")

        def _parse_measured(
            data: object,
        ) -> (
            AnthropicMessagesUsageOrOpenAIResponsesUsage
            | BedrockConverseUsage
            | GeminiUsageMetadata
            | GeminiUsageMetadataInSnakeCase
            | OpenAIChatCompletionsUsage
            | TheServicesOwnCounts
        ):
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
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_measured_bedrock_converse_usage = (
                BedrockConverseUsage.from_dict(data)
            )

            return componentsschemas_measured_bedrock_converse_usage

        measured = _parse_measured(d.pop("measured"))

        calibration = cls(
            counted=counted,
            measured=measured,
        )

        return calibration
