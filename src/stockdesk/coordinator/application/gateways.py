"""How the coordinator reaches research, the debate and the judge: through their application
interfaces, never their internals (judge-design.md, Decision 5). DTO conversion happens here and
only here.

Async so that LangGraph runs the fan-out concurrently; blocking work moves to a thread
(asyncio.to_thread copies the context, so the session's LLM run id follows the call).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

from pydantic import BaseModel

from stockdesk.data_engineering.application import CheckAsOfUseCase, GetStockBasicInfoUseCase
from stockdesk.debate.application import DebateMode, DebateService
from stockdesk.judge.application import Holding, JudgeService, is_sufficient
from stockdesk.research.application import (
    ChartSet,
    ExpertResult,
    ExpertView,
    ModelView,
    RulesOnlyResultDTO,
    expert_result,
    rules_only_result,
    with_code_signal,
)
from stockdesk.shared.errors import BadRequestException

ExpertRunner = Callable[[str, date | None], BaseModel]
SnapshotBuilder = Callable[[str, date | None], BaseModel]
ChartBuilder = Callable[[str, date | None], ChartSet]
ModelViewBuilder = Callable[[str, date], ModelView | None]
"""(symbol, as_of) -> the signal model's verdict there (research.SignalModelService.view)"""


class CheckedDate(BaseModel):
    """The date a session runs as of; `clamped`: none was asked, the newest stored bar's was taken."""

    as_of: date | None
    clamped: bool = False
    first: date | None = None
    last: date | None = None

    def note(self) -> dict[str, Any]:
        """What the session's aggregation records of it (the report says a clamped date in words)."""
        if self.first is None:
            return {}
        last = self.last.isoformat() if self.last else None
        return {"stored_bars": {"first": self.first.isoformat(), "last": last}, "as_of_clamped": self.clamped}


class ResearchGateway:
    def __init__(
        self,
        runners: Mapping[str, Callable[[], ExpertRunner]],
        securities: GetStockBasicInfoUseCase,
        snapshots: Mapping[str, Callable[[], SnapshotBuilder]] | None = None,
        charts: Callable[[], ChartBuilder] | None = None,
        as_of_check: CheckAsOfUseCase | None = None,
        model: Callable[[], ModelViewBuilder] | None = None,
    ):
        """`runners[name]()` gives that expert's `run(symbol, as_of)`, `snapshots[name]()` its
        `build_snapshot(symbol, as_of)`, `charts()` the chart data's `build(symbol, as_of)`;
        built only when used; `as_of_check` keeps dates inside the stored bars (None: unchecked)."""
        self._runners = runners
        self._as_of_check = as_of_check
        self._securities = securities
        self._snapshots = snapshots or {}
        self._charts = charts
        self._model = model

    async def model_view(self, symbol: str, as_of: date | None) -> ModelView | None:
        """The walk-forward signal model's verdict at `as_of` (what the rules verdict is); None
        without a model (the rules fall back to the composite)."""
        if self._model is None or as_of is None:
            return None
        return await asyncio.to_thread(self._model(), symbol, as_of)

    def require_symbol(self, symbol: str) -> str:
        """The symbol as the store spells it; NotFoundException before any expert runs."""
        return self._securities.require(symbol).symbol

    def check_as_of(self, symbol: str, as_of: date | None) -> CheckedDate:
        """The date inside the symbol's stored bars (BadRequest AS_OF_OUT_OF_RANGE outside them; the
        newest bar's date when none is asked); without a check the date is kept."""
        if self._as_of_check is None:
            return CheckedDate(as_of=as_of)
        checked = self._as_of_check.execute([symbol], as_of)[symbol]
        return CheckedDate(
            as_of=checked.as_of, clamped=checked.clamped, first=checked.first, last=checked.last
        )

    async def run_expert(self, expert: str, symbol: str, as_of: date | None) -> ExpertResult:
        """One research expert's typed result, with its `code_signal`."""
        if expert not in self._runners:
            raise BadRequestException(f"unknown expert {expert!r}", code="UNKNOWN_EXPERT")
        result = await asyncio.to_thread(self._runners[expert](), symbol, as_of)
        return with_code_signal(expert, expert_result(expert, result))

    async def run_expert_rules(self, expert: str, symbol: str, as_of: date | None) -> RulesOnlyResultDTO:
        """The expert's snapshot and code-only signal, no LLM (rules-only mode, plan prices)."""
        if expert not in self._snapshots:
            raise BadRequestException(f"unknown expert {expert!r}", code="UNKNOWN_EXPERT")
        snapshot = await asyncio.to_thread(self._snapshots[expert](), symbol, as_of)
        return rules_only_result(expert, symbol, as_of, snapshot)

    async def build_charts(
        self, symbol: str, as_of: date | None
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The research charts (ChartSpec dicts: price, valuation, financials) and, by chart, why one
        could not be built; none without chart data."""
        if self._charts is None:
            return [], {}
        chart_set = await asyncio.to_thread(self._charts(), symbol, as_of)
        return [c.model_dump(mode="json") for c in chart_set.charts], dict(chart_set.failed)


class DebateGateway:
    def __init__(self, service: Callable[[], DebateService]):
        self._service = service

    async def run_debate(
        self, symbol: str, views: list[ExpertView], mode: str, as_of: date | None
    ) -> dict[str, Any]:
        """The DebateOutcome, serialised."""
        service = self._service()
        outcome = await asyncio.to_thread(service.run, symbol, views, DebateMode(mode), as_of)
        return outcome.model_dump(mode="json")


class JudgeGateway:
    def __init__(self, service: Callable[[], JudgeService]):
        self._service = service

    async def run_verdict(
        self,
        symbol: str,
        debate_outcome: dict[str, Any],
        evidence: dict[str, Any],
        samples: int = 1,
        holding: Holding | None = None,
    ) -> dict[str, Any]:
        """Execute the verdict; returns the VerdictDTO serialised.

        `evidence`: stances, code_signals, technical (the snapshot with the as-of prices), facts;
        `holding`: the user's position (the verdict then carries the holder's plan).
        """
        service = self._service()
        verdict = await asyncio.to_thread(
            lambda: service.run_on_outcome(symbol, debate_outcome, evidence, samples=samples, holding=holding)
        )
        return verdict.model_dump(mode="json")

    async def rules_verdict(
        self, symbol: str, evidence: dict[str, Any], holding: Holding | None = None
    ) -> dict[str, Any]:
        """The code-only verdict from the same evidence, no LLM."""
        verdict = await asyncio.to_thread(self._service().rules_only, symbol, evidence, holding)
        return verdict.model_dump(mode="json")

    def sufficient(self, experts_with_data: list[str]) -> bool:
        """Whether a verdict may rest on these experts (the judge's rule). When not, the debate is
        skipped and the judge answers `insufficient evidence` without the LLM."""
        return is_sufficient(experts_with_data)
