from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.plan_request_collapse_type_0 import PlanRequestCollapseType0
from ..models.plan_request_format import PlanRequestFormat
from ..models.plan_request_tokenizer_type_0 import PlanRequestTokenizerType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.calibration import Calibration
    from ..models.fit_strategy import FitStrategy
    from ..models.paused import Paused
    from ..models.plan_cap import PlanCap
    from ..models.plan_clear import PlanClear
    from ..models.plan_recall import PlanRecall
    from ..models.plan_request_ledger_type_0_item_type_0 import (
        PlanRequestLedgerType0ItemType0,
    )
    from ..models.plan_request_ledger_type_0_item_type_1 import (
        PlanRequestLedgerType0ItemType1,
    )
    from ..models.plan_request_system_type_1_item import PlanRequestSystemType1Item
    from ..models.plan_request_system_type_3 import PlanRequestSystemType3
    from ..models.plan_summarize import PlanSummarize
    from ..models.plan_summary import PlanSummary
    from ..models.prior_record import PriorRecord
    from ..models.sliding_window_strategy import SlidingWindowStrategy
    from ..models.token_budget_strategy import TokenBudgetStrategy


T = TypeVar("T", bound="PlanRequest")


@_attrs_define
class PlanRequest:
    """What to plan: the transcript, the strategy and the pin options.

    Attributes:
        messages (list[Any]): The transcript, oldest first, in `format`. Native messages are `{"role", "content",
            "tool_calls": [{"id", "name", "arguments"}], "tool_call_id", "tool_name", "injected", "not_dispatched"}`; OpenAI
            Chat Completions messages, Anthropic Messages, OpenAI Responses `input` items, Gemini `contents` and Bedrock
            Converse messages are accepted as they are. Extra fields are kept and returned verbatim.
        format_ (PlanRequestFormat | Unset): `auto` detects the format from the messages and says which in the response;
            `native`, `openai` (Chat Completions), `anthropic` (Messages), `responses` (OpenAI Responses input items),
            `gemini` (contents) or `bedrock` (Converse messages). Default: PlanRequestFormat.AUTO.
        system (list[Any] | list[PlanRequestSystemType1Item] | None | PlanRequestSystemType3 | str | Unset): The top-
            level system prompt of the formats that keep it outside the messages, in the provider's shape: Anthropic
            `system` (a string or text blocks), Responses `instructions` (a string), Gemini `systemInstruction` (`{"parts":
            [...]}`), Bedrock `system` (blocks). It is outside the plan: never a turn, never evicted; counted in
            `stats.system_chars`.
        strategy (FitStrategy | SlidingWindowStrategy | TokenBudgetStrategy | Unset): `sliding-window` (default, keep 6
            turns), `token-budget` or `fit`.
        keep_last_tool_results (int | Unset): Ceiling of last-tool-result pins (each tool's latest result); 0 = off.
            Default: 2.
        ledger (list[PlanRequestLedgerType0ItemType0 | PlanRequestLedgerType0ItemType1] | None | Unset): The findings
            ledger. Present (even []) arms ledger-fact pins; absent or null leaves them off.
        keep_ledger_facts (int | Unset): Ceiling of ledger-fact pins. Default: 4.
        request_text (None | str | Unset): The text the run was started with; finds the current request exactly.
        detect_frames (bool | None | Unset): Tell framework frames from a person's words: a user text made only of
            listed framework elements (`<system-reminder>…</system-reminder>`, a command echo), starting with a known
            framework sentence (`Stop hook feedback:`) or an interruption line (`[Request interrupted by user]`) is never
            the current request, unless `request_text` names it. false turns detection off; null means true. Default: True.
        frame_tags (list[str] | None | Unset): More element names that make a frame, besides the listed ones (each
            `[A-Za-z][A-Za-z0-9_.:-]*`, at most 64 characters; at most 256 names by default, `CWP_MAX_FRAME_TAGS`); null
            means [].
        paused (None | Paused | Unset): The call the run is paused on.
        iteration (int | Unset): Written into the drop notice and the record. Default: 1.
        prior_records (list[PriorRecord] | None | Unset): The records this run received from earlier plans, oldest first
            (the last two are read, for the stand-down; the last, for the `fit` strategy's held cut); null means [].
        include_window (bool | Unset): Return the new window, ready to send. Default: True.
        collapse (None | PlanRequestCollapseType0 | Unset): Send results the ledger set aside as short tickets: `ledger-
            and-facts` collapses `noise` and `ruled-out`, `ledger-only` also `fact`. Needs `ledger`. Off when absent or
            null.
        cap (None | PlanCap | Unset): Replace every result whose text is over its ceiling by the cap's marker (the same
            as `POST /v1/tool-results/cap`). Off when absent or null.
        clear (None | PlanClear | Unset): Send results the model has already read, older than the newest few, as a short
            placeholder, the boundary moving forward in steps (observation masking). Each tool's latest result, excluded
            tools, ledger `fact` and `open` results and results not yet read stay whole. Under `fit`, clearing comes first
            and removal takes only what it could not free. Off when absent or null; `{}` is every default.
        summarize (None | PlanSummarize | Unset): Ask for a summary of what a plan removes at the front: the answer then
            carries `summary_request`, a ready-to-send request to the agent's own model (the window sent before, up to the
            end of the removed span, and an instruction, so a provider prompt cache serves most of it). Send the text it
            answers in `summaries`. Off when absent or null; `{}` is every default.
        summaries (list[PlanSummary] | None | Unset): Summaries obtained for earlier summary requests (the newest 16 at
            most). One that still matches the messages it covers and starts the removed span takes the notice's place; the
            others are reported in `summaries_ignored`. Read whether `summarize` is on or not; null is [].
        recall (None | PlanRecall | Unset): Let the model get back what the plan takes out: the placeholder, the cap
            marker (its `ref`), the drop notice and the summary message name the tool `tool_name`, the answer carries its
            declaration in the request's format (`recall_tool`, ready to append to the agent's tools), and a result of that
            tool is never capped. Answer its calls from the whole history with `POST /v1/recall`. Off when absent or null;
            `{}` is every default.
        include_turns (bool | Unset): false leaves `turns`, `kept` and `evicted` out of the answer: they grow with the
            transcript, while `evicted_messages`, the pins and the refusals say what an agent needs. Default: True.
        tokenizer (None | PlanRequestTokenizerType0 | Unset): Count tokens: `o200k_base` (GPT-4o, GPT-4.1, GPT-5,
            o-series) and `cl100k_base` (GPT-4, GPT-3.5) exactly, `estimate` (a quarter of the UTF-8 bytes) for any other
            model. null: no token figures, unless the strategy is `fit`, which then counts with `estimate`.
        calibration (Calibration | None | Unset): Scale the counts to the provider's last measurement. Off when null.
    """

    messages: list[Any]
    format_: PlanRequestFormat | Unset = PlanRequestFormat.AUTO
    system: (
        list[Any]
        | list[PlanRequestSystemType1Item]
        | None
        | PlanRequestSystemType3
        | str
        | Unset
    ) = UNSET
    strategy: FitStrategy | SlidingWindowStrategy | TokenBudgetStrategy | Unset = UNSET
    keep_last_tool_results: int | Unset = 2
    ledger: (
        list[PlanRequestLedgerType0ItemType0 | PlanRequestLedgerType0ItemType1]
        | None
        | Unset
    ) = UNSET
    keep_ledger_facts: int | Unset = 4
    request_text: None | str | Unset = UNSET
    detect_frames: bool | None | Unset = True
    frame_tags: list[str] | None | Unset = UNSET
    paused: None | Paused | Unset = UNSET
    iteration: int | Unset = 1
    prior_records: list[PriorRecord] | None | Unset = UNSET
    include_window: bool | Unset = True
    collapse: None | PlanRequestCollapseType0 | Unset = UNSET
    cap: None | PlanCap | Unset = UNSET
    clear: None | PlanClear | Unset = UNSET
    summarize: None | PlanSummarize | Unset = UNSET
    summaries: list[PlanSummary] | None | Unset = UNSET
    recall: None | PlanRecall | Unset = UNSET
    include_turns: bool | Unset = True
    tokenizer: None | PlanRequestTokenizerType0 | Unset = UNSET
    calibration: Calibration | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.calibration import Calibration  # noqa: PLC0415
        from ..models.fit_strategy import FitStrategy  # noqa: PLC0415
        from ..models.paused import Paused  # noqa: PLC0415
        from ..models.plan_cap import PlanCap  # noqa: PLC0415
        from ..models.plan_clear import PlanClear  # noqa: PLC0415
        from ..models.plan_recall import PlanRecall  # noqa: PLC0415
        from ..models.plan_request_ledger_type_0_item_type_0 import (
            PlanRequestLedgerType0ItemType0,  # noqa: PLC0415
        )
        from ..models.plan_request_ledger_type_0_item_type_1 import (
            PlanRequestLedgerType0ItemType1,  # noqa: PLC0415
        )
        from ..models.plan_request_system_type_1_item import PlanRequestSystemType1Item  # noqa: PLC0415
        from ..models.plan_request_system_type_3 import PlanRequestSystemType3  # noqa: PLC0415
        from ..models.plan_summarize import PlanSummarize  # noqa: PLC0415
        from ..models.plan_summary import PlanSummary  # noqa: PLC0415
        from ..models.prior_record import PriorRecord  # noqa: PLC0415
        from ..models.sliding_window_strategy import SlidingWindowStrategy  # noqa: PLC0415
        from ..models.token_budget_strategy import TokenBudgetStrategy  # noqa: PLC0415

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

        elif isinstance(self.system, PlanRequestSystemType3):
            system = self.system.to_dict()
        else:
            system = self.system

        strategy: dict[str, Any] | Unset
        if isinstance(self.strategy, Unset):
            strategy = UNSET
        elif isinstance(self.strategy, SlidingWindowStrategy):
            strategy = self.strategy.to_dict()
        elif isinstance(self.strategy, TokenBudgetStrategy):
            strategy = self.strategy.to_dict()
        else:
            strategy = self.strategy.to_dict()

        keep_last_tool_results = self.keep_last_tool_results

        ledger: list[dict[str, Any]] | None | Unset
        if isinstance(self.ledger, Unset):
            ledger = UNSET
        elif isinstance(self.ledger, list):
            ledger = []
            for ledger_type_0_item_data in self.ledger:
                ledger_type_0_item: dict[str, Any]
                if isinstance(ledger_type_0_item_data, PlanRequestLedgerType0ItemType0):
                    ledger_type_0_item = ledger_type_0_item_data.to_dict()
                else:
                    ledger_type_0_item = ledger_type_0_item_data.to_dict()

                ledger.append(ledger_type_0_item)

        else:
            ledger = self.ledger

        keep_ledger_facts = self.keep_ledger_facts

        request_text: None | str | Unset
        if isinstance(self.request_text, Unset):
            request_text = UNSET
        else:
            request_text = self.request_text

        detect_frames: bool | None | Unset
        if isinstance(self.detect_frames, Unset):
            detect_frames = UNSET
        else:
            detect_frames = self.detect_frames

        frame_tags: list[str] | None | Unset
        if isinstance(self.frame_tags, Unset):
            frame_tags = UNSET
        elif isinstance(self.frame_tags, list):
            frame_tags = self.frame_tags

        else:
            frame_tags = self.frame_tags

        paused: dict[str, Any] | None | Unset
        if isinstance(self.paused, Unset):
            paused = UNSET
        elif isinstance(self.paused, Paused):
            paused = self.paused.to_dict()
        else:
            paused = self.paused

        iteration = self.iteration

        prior_records: list[dict[str, Any]] | None | Unset
        if isinstance(self.prior_records, Unset):
            prior_records = UNSET
        elif isinstance(self.prior_records, list):
            prior_records = []
            for prior_records_type_0_item_data in self.prior_records:
                prior_records_type_0_item = prior_records_type_0_item_data.to_dict()
                prior_records.append(prior_records_type_0_item)

        else:
            prior_records = self.prior_records

        include_window = self.include_window

        collapse: None | str | Unset
        if isinstance(self.collapse, Unset):
            collapse = UNSET
        elif isinstance(self.collapse, PlanRequestCollapseType0):
            collapse = self.collapse.value
        else:
            collapse = self.collapse

        cap: dict[str, Any] | None | Unset
        if isinstance(self.cap, Unset):
            cap = UNSET
        elif isinstance(self.cap, PlanCap):
            cap = self.cap.to_dict()
        else:
            cap = self.cap

        clear: dict[str, Any] | None | Unset
        if isinstance(self.clear, Unset):
            clear = UNSET
        elif isinstance(self.clear, PlanClear):
            clear = self.clear.to_dict()
        else:
            clear = self.clear

        summarize: dict[str, Any] | None | Unset
        if isinstance(self.summarize, Unset):
            summarize = UNSET
        elif isinstance(self.summarize, PlanSummarize):
            summarize = self.summarize.to_dict()
        else:
            summarize = self.summarize

        summaries: list[dict[str, Any]] | None | Unset
        if isinstance(self.summaries, Unset):
            summaries = UNSET
        elif isinstance(self.summaries, list):
            summaries = []
            for summaries_type_0_item_data in self.summaries:
                summaries_type_0_item = summaries_type_0_item_data.to_dict()
                summaries.append(summaries_type_0_item)

        else:
            summaries = self.summaries

        recall: dict[str, Any] | None | Unset
        if isinstance(self.recall, Unset):
            recall = UNSET
        elif isinstance(self.recall, PlanRecall):
            recall = self.recall.to_dict()
        else:
            recall = self.recall

        include_turns = self.include_turns

        tokenizer: None | str | Unset
        if isinstance(self.tokenizer, Unset):
            tokenizer = UNSET
        elif isinstance(self.tokenizer, PlanRequestTokenizerType0):
            tokenizer = self.tokenizer.value
        else:
            tokenizer = self.tokenizer

        calibration: dict[str, Any] | None | Unset
        if isinstance(self.calibration, Unset):
            calibration = UNSET
        elif isinstance(self.calibration, Calibration):
            calibration = self.calibration.to_dict()
        else:
            calibration = self.calibration

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
        if strategy is not UNSET:
            field_dict["strategy"] = strategy
        if keep_last_tool_results is not UNSET:
            field_dict["keep_last_tool_results"] = keep_last_tool_results
        if ledger is not UNSET:
            field_dict["ledger"] = ledger
        if keep_ledger_facts is not UNSET:
            field_dict["keep_ledger_facts"] = keep_ledger_facts
        if request_text is not UNSET:
            field_dict["request_text"] = request_text
        if detect_frames is not UNSET:
            field_dict["detect_frames"] = detect_frames
        if frame_tags is not UNSET:
            field_dict["frame_tags"] = frame_tags
        if paused is not UNSET:
            field_dict["paused"] = paused
        if iteration is not UNSET:
            field_dict["iteration"] = iteration
        if prior_records is not UNSET:
            field_dict["prior_records"] = prior_records
        if include_window is not UNSET:
            field_dict["include_window"] = include_window
        if collapse is not UNSET:
            field_dict["collapse"] = collapse
        if cap is not UNSET:
            field_dict["cap"] = cap
        if clear is not UNSET:
            field_dict["clear"] = clear
        if summarize is not UNSET:
            field_dict["summarize"] = summarize
        if summaries is not UNSET:
            field_dict["summaries"] = summaries
        if recall is not UNSET:
            field_dict["recall"] = recall
        if include_turns is not UNSET:
            field_dict["include_turns"] = include_turns
        if tokenizer is not UNSET:
            field_dict["tokenizer"] = tokenizer
        if calibration is not UNSET:
            field_dict["calibration"] = calibration

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.calibration import Calibration  # noqa: PLC0415
        from ..models.fit_strategy import FitStrategy  # noqa: PLC0415
        from ..models.paused import Paused  # noqa: PLC0415
        from ..models.plan_cap import PlanCap  # noqa: PLC0415
        from ..models.plan_clear import PlanClear  # noqa: PLC0415
        from ..models.plan_recall import PlanRecall  # noqa: PLC0415
        from ..models.plan_request_ledger_type_0_item_type_0 import (
            PlanRequestLedgerType0ItemType0,  # noqa: PLC0415
        )
        from ..models.plan_request_ledger_type_0_item_type_1 import (
            PlanRequestLedgerType0ItemType1,  # noqa: PLC0415
        )
        from ..models.plan_request_system_type_1_item import PlanRequestSystemType1Item  # noqa: PLC0415
        from ..models.plan_request_system_type_3 import PlanRequestSystemType3  # noqa: PLC0415
        from ..models.plan_summarize import PlanSummarize  # noqa: PLC0415
        from ..models.plan_summary import PlanSummary  # noqa: PLC0415
        from ..models.prior_record import PriorRecord  # noqa: PLC0415
        from ..models.sliding_window_strategy import SlidingWindowStrategy  # noqa: PLC0415
        from ..models.token_budget_strategy import TokenBudgetStrategy  # noqa: PLC0415

        d = dict(src_dict)
        messages = cast(list[Any], d.pop("messages"))

        _format_ = d.pop("format", UNSET)
        format_: PlanRequestFormat | Unset
        if isinstance(_format_, Unset):
            format_ = UNSET
        else:
            format_ = PlanRequestFormat(_format_)

        def _parse_system(
            data: object,
        ) -> (
            list[Any]
            | list[PlanRequestSystemType1Item]
            | None
            | PlanRequestSystemType3
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
                    system_type_1_item = PlanRequestSystemType1Item.from_dict(
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
                system_type_3 = PlanRequestSystemType3.from_dict(data)

                return system_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                list[Any]
                | list[PlanRequestSystemType1Item]
                | None
                | PlanRequestSystemType3
                | str
                | Unset,
                data,
            )

        system = _parse_system(d.pop("system", UNSET))

        def _parse_strategy(
            data: object,
        ) -> FitStrategy | SlidingWindowStrategy | TokenBudgetStrategy | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                strategy_type_0 = SlidingWindowStrategy.from_dict(data)

                return strategy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                strategy_type_1 = TokenBudgetStrategy.from_dict(data)

                return strategy_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            strategy_type_2 = FitStrategy.from_dict(data)

            return strategy_type_2

        strategy = _parse_strategy(d.pop("strategy", UNSET))

        keep_last_tool_results = d.pop("keep_last_tool_results", UNSET)

        def _parse_ledger(
            data: object,
        ) -> (
            list[PlanRequestLedgerType0ItemType0 | PlanRequestLedgerType0ItemType1]
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
                        PlanRequestLedgerType0ItemType0
                        | PlanRequestLedgerType0ItemType1
                    ):
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            ledger_type_0_item_type_0 = (
                                PlanRequestLedgerType0ItemType0.from_dict(data)
                            )

                            return ledger_type_0_item_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        ledger_type_0_item_type_1 = (
                            PlanRequestLedgerType0ItemType1.from_dict(data)
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
                list[PlanRequestLedgerType0ItemType0 | PlanRequestLedgerType0ItemType1]
                | None
                | Unset,
                data,
            )

        ledger = _parse_ledger(d.pop("ledger", UNSET))

        keep_ledger_facts = d.pop("keep_ledger_facts", UNSET)

        def _parse_request_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        request_text = _parse_request_text(d.pop("request_text", UNSET))

        def _parse_detect_frames(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        detect_frames = _parse_detect_frames(d.pop("detect_frames", UNSET))

        def _parse_frame_tags(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                frame_tags_type_0 = cast(list[str], data)

                return frame_tags_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        frame_tags = _parse_frame_tags(d.pop("frame_tags", UNSET))

        def _parse_paused(data: object) -> None | Paused | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                paused_type_0 = Paused.from_dict(data)

                return paused_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Paused | Unset, data)

        paused = _parse_paused(d.pop("paused", UNSET))

        iteration = d.pop("iteration", UNSET)

        def _parse_prior_records(data: object) -> list[PriorRecord] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                prior_records_type_0 = []
                _prior_records_type_0 = data
                for prior_records_type_0_item_data in _prior_records_type_0:
                    prior_records_type_0_item = PriorRecord.from_dict(
                        prior_records_type_0_item_data
                    )

                    prior_records_type_0.append(prior_records_type_0_item)

                return prior_records_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PriorRecord] | None | Unset, data)

        prior_records = _parse_prior_records(d.pop("prior_records", UNSET))

        include_window = d.pop("include_window", UNSET)

        def _parse_collapse(data: object) -> None | PlanRequestCollapseType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                collapse_type_0 = PlanRequestCollapseType0(data)

                return collapse_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanRequestCollapseType0 | Unset, data)

        collapse = _parse_collapse(d.pop("collapse", UNSET))

        def _parse_cap(data: object) -> None | PlanCap | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                cap_type_0 = PlanCap.from_dict(data)

                return cap_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanCap | Unset, data)

        cap = _parse_cap(d.pop("cap", UNSET))

        def _parse_clear(data: object) -> None | PlanClear | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                clear_type_0 = PlanClear.from_dict(data)

                return clear_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanClear | Unset, data)

        clear = _parse_clear(d.pop("clear", UNSET))

        def _parse_summarize(data: object) -> None | PlanSummarize | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                summarize_type_0 = PlanSummarize.from_dict(data)

                return summarize_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanSummarize | Unset, data)

        summarize = _parse_summarize(d.pop("summarize", UNSET))

        def _parse_summaries(data: object) -> list[PlanSummary] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                summaries_type_0 = []
                _summaries_type_0 = data
                for summaries_type_0_item_data in _summaries_type_0:
                    summaries_type_0_item = PlanSummary.from_dict(
                        summaries_type_0_item_data
                    )

                    summaries_type_0.append(summaries_type_0_item)

                return summaries_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PlanSummary] | None | Unset, data)

        summaries = _parse_summaries(d.pop("summaries", UNSET))

        def _parse_recall(data: object) -> None | PlanRecall | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                recall_type_0 = PlanRecall.from_dict(data)

                return recall_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanRecall | Unset, data)

        recall = _parse_recall(d.pop("recall", UNSET))

        include_turns = d.pop("include_turns", UNSET)

        def _parse_tokenizer(data: object) -> None | PlanRequestTokenizerType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tokenizer_type_0 = PlanRequestTokenizerType0(data)

                return tokenizer_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanRequestTokenizerType0 | Unset, data)

        tokenizer = _parse_tokenizer(d.pop("tokenizer", UNSET))

        def _parse_calibration(data: object) -> Calibration | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                calibration_type_0 = Calibration.from_dict(data)

                return calibration_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Calibration | None | Unset, data)

        calibration = _parse_calibration(d.pop("calibration", UNSET))

        plan_request = cls(
            messages=messages,
            format_=format_,
            system=system,
            strategy=strategy,
            keep_last_tool_results=keep_last_tool_results,
            ledger=ledger,
            keep_ledger_facts=keep_ledger_facts,
            request_text=request_text,
            detect_frames=detect_frames,
            frame_tags=frame_tags,
            paused=paused,
            iteration=iteration,
            prior_records=prior_records,
            include_window=include_window,
            collapse=collapse,
            cap=cap,
            clear=clear,
            summarize=summarize,
            summaries=summaries,
            recall=recall,
            include_turns=include_turns,
            tokenizer=tokenizer,
            calibration=calibration,
        )

        return plan_request
