"""Contains all the data models used in inputs/outputs"""

from .answer_in import AnswerIn
from .anthropic_messages_usage_or_open_ai_responses_usage import (
    AnthropicMessagesUsageOrOpenAIResponsesUsage,
)
from .bedrock_converse_usage import BedrockConverseUsage
from .budget_out import BudgetOut
from .budget_out_stage import BudgetOutStage
from .budget_span_out import BudgetSpanOut
from .budget_span_out_stage import BudgetSpanOutStage
from .calibration import Calibration
from .cap_item import CapItem
from .cap_marker import CapMarker
from .cap_request import CapRequest
from .cap_request_max_chars_by_tool_type_0 import CapRequestMaxCharsByToolType0
from .cap_response import CapResponse
from .cap_result_out import CapResultOut
from .current_request_out import CurrentRequestOut
from .diagnostic_out import DiagnosticOut
from .diagnostic_out_code import DiagnosticOutCode
from .dropped_standing_out import DroppedStandingOut
from .dropped_standing_out_standing_type_0 import DroppedStandingOutStandingType0
from .fit_strategy import FitStrategy
from .fit_strategy_overflow import FitStrategyOverflow
from .gemini_usage_metadata import GeminiUsageMetadata
from .gemini_usage_metadata_in_snake_case import GeminiUsageMetadataInSnakeCase
from .health import Health
from .info import Info
from .info_defaults import InfoDefaults
from .info_limits import InfoLimits
from .keep_request import KeepRequest
from .keep_response import KeepResponse
from .kept_entry import KeptEntry
from .known_result_out import KnownResultOut
from .last_tool_result_block import LastToolResultBlock
from .last_tool_result_pin_out import LastToolResultPinOut
from .ledger_fact_block import LedgerFactBlock
from .ledger_fact_pin_out import LedgerFactPinOut
from .lookup_request import LookupRequest
from .lookup_response import LookupResponse
from .notice_out import NoticeOut
from .notice_out_rung import NoticeOutRung
from .offer_request import OfferRequest
from .offer_request_format import OfferRequestFormat
from .offer_request_ledger_type_0_item_type_0 import OfferRequestLedgerType0ItemType0
from .offer_request_ledger_type_0_item_type_0_kind_type_1 import (
    OfferRequestLedgerType0ItemType0KindType1,
)
from .offer_request_ledger_type_0_item_type_0_standing import (
    OfferRequestLedgerType0ItemType0Standing,
)
from .offer_request_ledger_type_0_item_type_1 import OfferRequestLedgerType0ItemType1
from .offer_request_system_type_1_item import OfferRequestSystemType1Item
from .offer_request_system_type_3 import OfferRequestSystemType3
from .offer_request_system_type_3_parts_item import OfferRequestSystemType3PartsItem
from .offer_response import OfferResponse
from .open_ai_chat_completions_usage import OpenAIChatCompletionsUsage
from .paused import Paused
from .pins_out import PinsOut
from .plan_cap import PlanCap
from .plan_cap_max_chars_by_tool_type_0 import PlanCapMaxCharsByToolType0
from .plan_clear import PlanClear
from .plan_recall import PlanRecall
from .plan_request import PlanRequest
from .plan_request_collapse_type_0 import PlanRequestCollapseType0
from .plan_request_format import PlanRequestFormat
from .plan_request_ledger_type_0_item_type_0 import PlanRequestLedgerType0ItemType0
from .plan_request_ledger_type_0_item_type_0_kind_type_1 import (
    PlanRequestLedgerType0ItemType0KindType1,
)
from .plan_request_ledger_type_0_item_type_0_standing import (
    PlanRequestLedgerType0ItemType0Standing,
)
from .plan_request_ledger_type_0_item_type_1 import PlanRequestLedgerType0ItemType1
from .plan_request_system_type_1_item import PlanRequestSystemType1Item
from .plan_request_system_type_3 import PlanRequestSystemType3
from .plan_request_system_type_3_parts_item import PlanRequestSystemType3PartsItem
from .plan_request_tokenizer_type_0 import PlanRequestTokenizerType0
from .plan_response import PlanResponse
from .plan_response_format import PlanResponseFormat
from .plan_response_recall_tool_type_0 import PlanResponseRecallToolType0
from .plan_response_strategy import PlanResponseStrategy
from .plan_summarize import PlanSummarize
from .plan_summary import PlanSummary
from .previous_batch_item import PreviousBatchItem
from .prior_record import PriorRecord
from .prior_refusal import PriorRefusal
from .problem import Problem
from .problem_item import ProblemItem
from .recall_request import RecallRequest
from .recall_request_format import RecallRequestFormat
from .recall_request_system_type_1_item import RecallRequestSystemType1Item
from .recall_request_system_type_3 import RecallRequestSystemType3
from .recall_request_system_type_3_parts_item import RecallRequestSystemType3PartsItem
from .recall_response import RecallResponse
from .record_out import RecordOut
from .record_out_strategy import RecordOutStrategy
from .refusal_out import RefusalOut
from .refusal_out_reason import RefusalOutReason
from .shaped_out import ShapedOut
from .shaped_out_action import ShapedOutAction
from .sliding_window_strategy import SlidingWindowStrategy
from .standing_out import StandingOut
from .standing_out_standing import StandingOutStanding
from .stats_out import StatsOut
from .summary_ignored_out import SummaryIgnoredOut
from .summary_ignored_out_reason import SummaryIgnoredOutReason
from .summary_request_out import SummaryRequestOut
from .summary_request_out_request import SummaryRequestOutRequest
from .summary_used_out import SummaryUsedOut
from .the_services_own_counts import TheServicesOwnCounts
from .token_budget_strategy import TokenBudgetStrategy
from .turn_out import TurnOut
from .turn_out_fate import TurnOutFate
from .turn_out_held_by_type_0 import TurnOutHeldByType0
from .turn_out_held_by_type_1 import TurnOutHeldByType1
from .use_request import UseRequest
from .use_response import UseResponse
from .used_pair_in import UsedPairIn

__all__ = (
    "AnswerIn",
    "AnthropicMessagesUsageOrOpenAIResponsesUsage",
    "BedrockConverseUsage",
    "BudgetOut",
    "BudgetOutStage",
    "BudgetSpanOut",
    "BudgetSpanOutStage",
    "Calibration",
    "CapItem",
    "CapMarker",
    "CapRequest",
    "CapRequestMaxCharsByToolType0",
    "CapResponse",
    "CapResultOut",
    "CurrentRequestOut",
    "DiagnosticOut",
    "DiagnosticOutCode",
    "DroppedStandingOut",
    "DroppedStandingOutStandingType0",
    "FitStrategy",
    "FitStrategyOverflow",
    "GeminiUsageMetadata",
    "GeminiUsageMetadataInSnakeCase",
    "Health",
    "Info",
    "InfoDefaults",
    "InfoLimits",
    "KeepRequest",
    "KeepResponse",
    "KeptEntry",
    "KnownResultOut",
    "LastToolResultBlock",
    "LastToolResultPinOut",
    "LedgerFactBlock",
    "LedgerFactPinOut",
    "LookupRequest",
    "LookupResponse",
    "NoticeOut",
    "NoticeOutRung",
    "OfferRequest",
    "OfferRequestFormat",
    "OfferRequestLedgerType0ItemType0",
    "OfferRequestLedgerType0ItemType0KindType1",
    "OfferRequestLedgerType0ItemType0Standing",
    "OfferRequestLedgerType0ItemType1",
    "OfferRequestSystemType1Item",
    "OfferRequestSystemType3",
    "OfferRequestSystemType3PartsItem",
    "OfferResponse",
    "OpenAIChatCompletionsUsage",
    "Paused",
    "PinsOut",
    "PlanCap",
    "PlanCapMaxCharsByToolType0",
    "PlanClear",
    "PlanRecall",
    "PlanRequest",
    "PlanRequestCollapseType0",
    "PlanRequestFormat",
    "PlanRequestLedgerType0ItemType0",
    "PlanRequestLedgerType0ItemType0KindType1",
    "PlanRequestLedgerType0ItemType0Standing",
    "PlanRequestLedgerType0ItemType1",
    "PlanRequestSystemType1Item",
    "PlanRequestSystemType3",
    "PlanRequestSystemType3PartsItem",
    "PlanRequestTokenizerType0",
    "PlanResponse",
    "PlanResponseFormat",
    "PlanResponseRecallToolType0",
    "PlanResponseStrategy",
    "PlanSummarize",
    "PlanSummary",
    "PreviousBatchItem",
    "PriorRecord",
    "PriorRefusal",
    "Problem",
    "ProblemItem",
    "RecallRequest",
    "RecallRequestFormat",
    "RecallRequestSystemType1Item",
    "RecallRequestSystemType3",
    "RecallRequestSystemType3PartsItem",
    "RecallResponse",
    "RecordOut",
    "RecordOutStrategy",
    "RefusalOut",
    "RefusalOutReason",
    "ShapedOut",
    "ShapedOutAction",
    "SlidingWindowStrategy",
    "StandingOut",
    "StandingOutStanding",
    "StatsOut",
    "SummaryIgnoredOut",
    "SummaryIgnoredOutReason",
    "SummaryRequestOut",
    "SummaryRequestOutRequest",
    "SummaryUsedOut",
    "TheServicesOwnCounts",
    "TokenBudgetStrategy",
    "TurnOut",
    "TurnOutFate",
    "TurnOutHeldByType0",
    "TurnOutHeldByType1",
    "UsedPairIn",
    "UseRequest",
    "UseResponse",
)
