from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.plan_response_format import PlanResponseFormat
from ..models.plan_response_strategy import PlanResponseStrategy
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.budget_out import BudgetOut
    from ..models.current_request_out import CurrentRequestOut
    from ..models.diagnostic_out import DiagnosticOut
    from ..models.dropped_standing_out import DroppedStandingOut
    from ..models.notice_out import NoticeOut
    from ..models.pins_out import PinsOut
    from ..models.plan_response_recall_tool_type_0 import PlanResponseRecallToolType0
    from ..models.record_out import RecordOut
    from ..models.refusal_out import RefusalOut
    from ..models.shaped_out import ShapedOut
    from ..models.stats_out import StatsOut
    from ..models.summary_ignored_out import SummaryIgnoredOut
    from ..models.summary_request_out import SummaryRequestOut
    from ..models.summary_used_out import SummaryUsedOut
    from ..models.turn_out import TurnOut


T = TypeVar("T", bound="PlanResponse")


@_attrs_define
class PlanResponse:
    """The window plan.

    Attributes:
        format_ (PlanResponseFormat):
        strategy (PlanResponseStrategy):
        engaged (bool):
        current_request (CurrentRequestOut | None):
        evicted_messages (list[int]):
        pins (PinsOut):
        refusals (list[RefusalOut]):
        notice (None | NoticeOut):
        stats (StatsOut):
        dropped_tool_names (list[str]):
        dropped_standings (list[DroppedStandingOut] | None):
        diagnostics (list[DiagnosticOut]): What in the transcript as sent a provider would refuse, or looks like a
            mistake; [] when nothing. Never changes a decision.
        record (None | RecordOut):
        turns (list[TurnOut] | None | Unset): Left out when `include_turns` is false.
        kept (list[int] | None | Unset): Left out when `include_turns` is false.
        evicted (list[int] | None | Unset): Left out when `include_turns` is false.
        budget (BudgetOut | None | Unset): Under the `fit` strategy only.
        shaped (list[ShapedOut] | None | Unset): With `collapse`, `cap` or `clear` (or when `fit`'s caps shaped
            something): every result whose text the window replaces (a ticket, a clear placeholder or a cap marker), every
            message whose images were replaced, and every message (a Responses reasoning item) whose reasoning left, by
            caller message: its results, then its images, then its reasoning.
        summary_request (None | SummaryRequestOut | Unset): With `summarize` or `summaries` only: what to ask the
            agent's own model to summarize (null when nothing is due).
        summary_used (None | SummaryUsedOut | Unset): With `summarize` or `summaries` only: the entry whose summary is
            in the window (null: none).
        summaries_ignored (list[SummaryIgnoredOut] | None | Unset): With `summarize` or `summaries` only: every other
            entry and why it did not apply.
        recall_tool (None | PlanResponseRecallToolType0 | Unset): With `recall` only: the recall tool's declaration in
            the request's format (a Chat Completions function tool for `native` and `openai`, an Anthropic tool, a Responses
            function tool, a Gemini `functionDeclarations` entry, a Converse `toolSpec` entry), ready to append to the
            agent's tools.
        window (list[Any] | None | Unset): The new window in the caller's format (left out when not asked for).
    """

    format_: PlanResponseFormat
    strategy: PlanResponseStrategy
    engaged: bool
    current_request: CurrentRequestOut | None
    evicted_messages: list[int]
    pins: PinsOut
    refusals: list[RefusalOut]
    notice: None | NoticeOut
    stats: StatsOut
    dropped_tool_names: list[str]
    dropped_standings: list[DroppedStandingOut] | None
    diagnostics: list[DiagnosticOut]
    record: None | RecordOut
    turns: list[TurnOut] | None | Unset = UNSET
    kept: list[int] | None | Unset = UNSET
    evicted: list[int] | None | Unset = UNSET
    budget: BudgetOut | None | Unset = UNSET
    shaped: list[ShapedOut] | None | Unset = UNSET
    summary_request: None | SummaryRequestOut | Unset = UNSET
    summary_used: None | SummaryUsedOut | Unset = UNSET
    summaries_ignored: list[SummaryIgnoredOut] | None | Unset = UNSET
    recall_tool: None | PlanResponseRecallToolType0 | Unset = UNSET
    window: list[Any] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.budget_out import BudgetOut  # noqa: PLC0415
        from ..models.current_request_out import CurrentRequestOut  # noqa: PLC0415
        from ..models.diagnostic_out import DiagnosticOut  # noqa: PLC0415
        from ..models.dropped_standing_out import DroppedStandingOut  # noqa: PLC0415
        from ..models.notice_out import NoticeOut  # noqa: PLC0415
        from ..models.pins_out import PinsOut  # noqa: PLC0415
        from ..models.plan_response_recall_tool_type_0 import (
            PlanResponseRecallToolType0,  # noqa: PLC0415
        )
        from ..models.record_out import RecordOut  # noqa: PLC0415
        from ..models.refusal_out import RefusalOut  # noqa: PLC0415
        from ..models.shaped_out import ShapedOut  # noqa: PLC0415
        from ..models.stats_out import StatsOut  # noqa: PLC0415
        from ..models.summary_ignored_out import SummaryIgnoredOut  # noqa: PLC0415
        from ..models.summary_request_out import SummaryRequestOut  # noqa: PLC0415
        from ..models.summary_used_out import SummaryUsedOut  # noqa: PLC0415
        from ..models.turn_out import TurnOut  # noqa: PLC0415

        format_ = self.format_.value

        strategy = self.strategy.value

        engaged = self.engaged

        current_request: dict[str, Any] | None
        if isinstance(self.current_request, CurrentRequestOut):
            current_request = self.current_request.to_dict()
        else:
            current_request = self.current_request

        evicted_messages = self.evicted_messages

        pins = self.pins.to_dict()

        refusals = []
        for refusals_item_data in self.refusals:
            refusals_item = refusals_item_data.to_dict()
            refusals.append(refusals_item)

        notice: dict[str, Any] | None
        if isinstance(self.notice, NoticeOut):
            notice = self.notice.to_dict()
        else:
            notice = self.notice

        stats = self.stats.to_dict()

        dropped_tool_names = self.dropped_tool_names

        dropped_standings: list[dict[str, Any]] | None
        if isinstance(self.dropped_standings, list):
            dropped_standings = []
            for dropped_standings_type_0_item_data in self.dropped_standings:
                dropped_standings_type_0_item = (
                    dropped_standings_type_0_item_data.to_dict()
                )
                dropped_standings.append(dropped_standings_type_0_item)

        else:
            dropped_standings = self.dropped_standings

        diagnostics = []
        for diagnostics_item_data in self.diagnostics:
            diagnostics_item = diagnostics_item_data.to_dict()
            diagnostics.append(diagnostics_item)

        record: dict[str, Any] | None
        if isinstance(self.record, RecordOut):
            record = self.record.to_dict()
        else:
            record = self.record

        turns: list[dict[str, Any]] | None | Unset
        if isinstance(self.turns, Unset):
            turns = UNSET
        elif isinstance(self.turns, list):
            turns = []
            for turns_type_0_item_data in self.turns:
                turns_type_0_item = turns_type_0_item_data.to_dict()
                turns.append(turns_type_0_item)

        else:
            turns = self.turns

        kept: list[int] | None | Unset
        if isinstance(self.kept, Unset):
            kept = UNSET
        elif isinstance(self.kept, list):
            kept = self.kept

        else:
            kept = self.kept

        evicted: list[int] | None | Unset
        if isinstance(self.evicted, Unset):
            evicted = UNSET
        elif isinstance(self.evicted, list):
            evicted = self.evicted

        else:
            evicted = self.evicted

        budget: dict[str, Any] | None | Unset
        if isinstance(self.budget, Unset):
            budget = UNSET
        elif isinstance(self.budget, BudgetOut):
            budget = self.budget.to_dict()
        else:
            budget = self.budget

        shaped: list[dict[str, Any]] | None | Unset
        if isinstance(self.shaped, Unset):
            shaped = UNSET
        elif isinstance(self.shaped, list):
            shaped = []
            for shaped_type_0_item_data in self.shaped:
                shaped_type_0_item = shaped_type_0_item_data.to_dict()
                shaped.append(shaped_type_0_item)

        else:
            shaped = self.shaped

        summary_request: dict[str, Any] | None | Unset
        if isinstance(self.summary_request, Unset):
            summary_request = UNSET
        elif isinstance(self.summary_request, SummaryRequestOut):
            summary_request = self.summary_request.to_dict()
        else:
            summary_request = self.summary_request

        summary_used: dict[str, Any] | None | Unset
        if isinstance(self.summary_used, Unset):
            summary_used = UNSET
        elif isinstance(self.summary_used, SummaryUsedOut):
            summary_used = self.summary_used.to_dict()
        else:
            summary_used = self.summary_used

        summaries_ignored: list[dict[str, Any]] | None | Unset
        if isinstance(self.summaries_ignored, Unset):
            summaries_ignored = UNSET
        elif isinstance(self.summaries_ignored, list):
            summaries_ignored = []
            for summaries_ignored_type_0_item_data in self.summaries_ignored:
                summaries_ignored_type_0_item = (
                    summaries_ignored_type_0_item_data.to_dict()
                )
                summaries_ignored.append(summaries_ignored_type_0_item)

        else:
            summaries_ignored = self.summaries_ignored

        recall_tool: dict[str, Any] | None | Unset
        if isinstance(self.recall_tool, Unset):
            recall_tool = UNSET
        elif isinstance(self.recall_tool, PlanResponseRecallToolType0):
            recall_tool = self.recall_tool.to_dict()
        else:
            recall_tool = self.recall_tool

        window: list[Any] | None | Unset
        if isinstance(self.window, Unset):
            window = UNSET
        elif isinstance(self.window, list):
            window = self.window

        else:
            window = self.window

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "format": format_,
                "strategy": strategy,
                "engaged": engaged,
                "current_request": current_request,
                "evicted_messages": evicted_messages,
                "pins": pins,
                "refusals": refusals,
                "notice": notice,
                "stats": stats,
                "dropped_tool_names": dropped_tool_names,
                "dropped_standings": dropped_standings,
                "diagnostics": diagnostics,
                "record": record,
            }
        )
        if turns is not UNSET:
            field_dict["turns"] = turns
        if kept is not UNSET:
            field_dict["kept"] = kept
        if evicted is not UNSET:
            field_dict["evicted"] = evicted
        if budget is not UNSET:
            field_dict["budget"] = budget
        if shaped is not UNSET:
            field_dict["shaped"] = shaped
        if summary_request is not UNSET:
            field_dict["summary_request"] = summary_request
        if summary_used is not UNSET:
            field_dict["summary_used"] = summary_used
        if summaries_ignored is not UNSET:
            field_dict["summaries_ignored"] = summaries_ignored
        if recall_tool is not UNSET:
            field_dict["recall_tool"] = recall_tool
        if window is not UNSET:
            field_dict["window"] = window

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.budget_out import BudgetOut  # noqa: PLC0415
        from ..models.current_request_out import CurrentRequestOut  # noqa: PLC0415
        from ..models.diagnostic_out import DiagnosticOut  # noqa: PLC0415
        from ..models.dropped_standing_out import DroppedStandingOut  # noqa: PLC0415
        from ..models.notice_out import NoticeOut  # noqa: PLC0415
        from ..models.pins_out import PinsOut  # noqa: PLC0415
        from ..models.plan_response_recall_tool_type_0 import (
            PlanResponseRecallToolType0,  # noqa: PLC0415
        )
        from ..models.record_out import RecordOut  # noqa: PLC0415
        from ..models.refusal_out import RefusalOut  # noqa: PLC0415
        from ..models.shaped_out import ShapedOut  # noqa: PLC0415
        from ..models.stats_out import StatsOut  # noqa: PLC0415
        from ..models.summary_ignored_out import SummaryIgnoredOut  # noqa: PLC0415
        from ..models.summary_request_out import SummaryRequestOut  # noqa: PLC0415
        from ..models.summary_used_out import SummaryUsedOut  # noqa: PLC0415
        from ..models.turn_out import TurnOut  # noqa: PLC0415

        d = dict(src_dict)
        format_ = PlanResponseFormat(d.pop("format"))

        strategy = PlanResponseStrategy(d.pop("strategy"))

        engaged = d.pop("engaged")

        def _parse_current_request(data: object) -> CurrentRequestOut | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                current_request_type_0 = CurrentRequestOut.from_dict(data)

                return current_request_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CurrentRequestOut | None, data)

        current_request = _parse_current_request(d.pop("current_request"))

        evicted_messages = cast(list[int], d.pop("evicted_messages"))

        pins = PinsOut.from_dict(d.pop("pins"))

        refusals = []
        _refusals = d.pop("refusals")
        for refusals_item_data in _refusals:
            refusals_item = RefusalOut.from_dict(refusals_item_data)

            refusals.append(refusals_item)

        def _parse_notice(data: object) -> None | NoticeOut:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                notice_type_0 = NoticeOut.from_dict(data)

                return notice_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | NoticeOut, data)

        notice = _parse_notice(d.pop("notice"))

        stats = StatsOut.from_dict(d.pop("stats"))

        dropped_tool_names = cast(list[str], d.pop("dropped_tool_names"))

        def _parse_dropped_standings(data: object) -> list[DroppedStandingOut] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                dropped_standings_type_0 = []
                _dropped_standings_type_0 = data
                for dropped_standings_type_0_item_data in _dropped_standings_type_0:
                    dropped_standings_type_0_item = DroppedStandingOut.from_dict(
                        dropped_standings_type_0_item_data
                    )

                    dropped_standings_type_0.append(dropped_standings_type_0_item)

                return dropped_standings_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[DroppedStandingOut] | None, data)

        dropped_standings = _parse_dropped_standings(d.pop("dropped_standings"))

        diagnostics = []
        _diagnostics = d.pop("diagnostics")
        for diagnostics_item_data in _diagnostics:
            diagnostics_item = DiagnosticOut.from_dict(diagnostics_item_data)

            diagnostics.append(diagnostics_item)

        def _parse_record(data: object) -> None | RecordOut:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                record_type_0 = RecordOut.from_dict(data)

                return record_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RecordOut, data)

        record = _parse_record(d.pop("record"))

        def _parse_turns(data: object) -> list[TurnOut] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                turns_type_0 = []
                _turns_type_0 = data
                for turns_type_0_item_data in _turns_type_0:
                    turns_type_0_item = TurnOut.from_dict(turns_type_0_item_data)

                    turns_type_0.append(turns_type_0_item)

                return turns_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TurnOut] | None | Unset, data)

        turns = _parse_turns(d.pop("turns", UNSET))

        def _parse_kept(data: object) -> list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                kept_type_0 = cast(list[int], data)

                return kept_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None | Unset, data)

        kept = _parse_kept(d.pop("kept", UNSET))

        def _parse_evicted(data: object) -> list[int] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                evicted_type_0 = cast(list[int], data)

                return evicted_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None | Unset, data)

        evicted = _parse_evicted(d.pop("evicted", UNSET))

        def _parse_budget(data: object) -> BudgetOut | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                budget_type_0 = BudgetOut.from_dict(data)

                return budget_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BudgetOut | None | Unset, data)

        budget = _parse_budget(d.pop("budget", UNSET))

        def _parse_shaped(data: object) -> list[ShapedOut] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                shaped_type_0 = []
                _shaped_type_0 = data
                for shaped_type_0_item_data in _shaped_type_0:
                    shaped_type_0_item = ShapedOut.from_dict(shaped_type_0_item_data)

                    shaped_type_0.append(shaped_type_0_item)

                return shaped_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ShapedOut] | None | Unset, data)

        shaped = _parse_shaped(d.pop("shaped", UNSET))

        def _parse_summary_request(data: object) -> None | SummaryRequestOut | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                summary_request_type_0 = SummaryRequestOut.from_dict(data)

                return summary_request_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SummaryRequestOut | Unset, data)

        summary_request = _parse_summary_request(d.pop("summary_request", UNSET))

        def _parse_summary_used(data: object) -> None | SummaryUsedOut | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                summary_used_type_0 = SummaryUsedOut.from_dict(data)

                return summary_used_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SummaryUsedOut | Unset, data)

        summary_used = _parse_summary_used(d.pop("summary_used", UNSET))

        def _parse_summaries_ignored(
            data: object,
        ) -> list[SummaryIgnoredOut] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                summaries_ignored_type_0 = []
                _summaries_ignored_type_0 = data
                for summaries_ignored_type_0_item_data in _summaries_ignored_type_0:
                    summaries_ignored_type_0_item = SummaryIgnoredOut.from_dict(
                        summaries_ignored_type_0_item_data
                    )

                    summaries_ignored_type_0.append(summaries_ignored_type_0_item)

                return summaries_ignored_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[SummaryIgnoredOut] | None | Unset, data)

        summaries_ignored = _parse_summaries_ignored(d.pop("summaries_ignored", UNSET))

        def _parse_recall_tool(
            data: object,
        ) -> None | PlanResponseRecallToolType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                recall_tool_type_0 = PlanResponseRecallToolType0.from_dict(data)

                return recall_tool_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanResponseRecallToolType0 | Unset, data)

        recall_tool = _parse_recall_tool(d.pop("recall_tool", UNSET))

        def _parse_window(data: object) -> list[Any] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                window_type_0 = cast(list[Any], data)

                return window_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None | Unset, data)

        window = _parse_window(d.pop("window", UNSET))

        plan_response = cls(
            format_=format_,
            strategy=strategy,
            engaged=engaged,
            current_request=current_request,
            evicted_messages=evicted_messages,
            pins=pins,
            refusals=refusals,
            notice=notice,
            stats=stats,
            dropped_tool_names=dropped_tool_names,
            dropped_standings=dropped_standings,
            diagnostics=diagnostics,
            record=record,
            turns=turns,
            kept=kept,
            evicted=evicted,
            budget=budget,
            shaped=shaped,
            summary_request=summary_request,
            summary_used=summary_used,
            summaries_ignored=summaries_ignored,
            recall_tool=recall_tool,
            window=window,
        )

        plan_response.additional_properties = d
        return plan_response

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
