"""Composition root of the evaluation: verdict sources over the other contexts, the task store."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from stockdesk.coordinator.application import ResearchCoordinatorService
from stockdesk.data_engineering.application import GetMarketFramesUseCase, ListSecuritiesUseCase
from stockdesk.evaluation.application.evaluation_service import EvaluationService
from stockdesk.evaluation.application.ledger_entries import LedgerEntries
from stockdesk.evaluation.application.market import EvaluationMarket
from stockdesk.evaluation.application.track_service import TrackService
from stockdesk.evaluation.domain.dtos import EvaluationMode
from stockdesk.evaluation.infrastructure.adapters.coordinator_source import CoordinatorVerdictSource
from stockdesk.evaluation.infrastructure.adapters.llm_usage import LLMUsageAdapter
from stockdesk.evaluation.infrastructure.adapters.rules_source import RulesVerdictSource
from stockdesk.evaluation.infrastructure.persistence.report_store import SqlEvaluationReportStore
from stockdesk.judge.application import JudgeService
from stockdesk.ledger.application import LedgerService
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.research.application import RulesSignalService
from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore


class EvaluationContainer:
    def __init__(
        self,
        *,
        database: Database,
        securities: ListSecuritiesUseCase,
        market_frames: GetMarketFramesUseCase,
        rules_signals: Callable[[], RulesSignalService],
        judge: Callable[[], JudgeService],
        coordinator: Callable[[], ResearchCoordinatorService],
        llm_service: Callable[[], LLMService],
        slots: int = 1,
        ledger: Callable[[], LedgerService] | None = None,
    ):
        """Every service argument is a factory: an evaluation in rules mode never builds the LLM."""
        self._database = database
        self._securities = securities
        self._frames = market_frames
        self._rules_signals = rules_signals
        self._judge = judge
        self._coordinator = coordinator
        self._llm_service = llm_service
        self._slots = slots
        self._ledger = ledger  # the verdict ledger `track` scores

    @cached_property
    def tasks(self) -> SqlTaskStore:
        return SqlTaskStore(self._database)

    @cached_property
    def market(self) -> EvaluationMarket:
        return EvaluationMarket(self._securities, self._frames)

    @cached_property
    def service(self) -> EvaluationService:
        return EvaluationService(
            self.market,
            {
                EvaluationMode.RULES: lambda: RulesVerdictSource(
                    self._rules_signals, self._judge, self.market
                ),
                EvaluationMode.EXPERTS: lambda: CoordinatorVerdictSource(
                    self._coordinator, EvaluationMode.EXPERTS
                ),
                EvaluationMode.FULL: lambda: CoordinatorVerdictSource(
                    self._coordinator, EvaluationMode.FULL, self._slots
                ),
            },
            self.tasks,
            lambda: LLMUsageAdapter(self._llm_service),
            SqlEvaluationReportStore(self._database),
        )

    @cached_property
    def track(self) -> TrackService:
        """`stockdesk track`: the ledger's matured entries scored with evaluate's fills and costs."""
        if self._ledger is None:
            raise RuntimeError("the evaluation container was built without the verdict ledger")
        return TrackService(
            self.market,
            LedgerEntries(self._ledger),
            lambda: sorted(s.symbol for s in self._securities.execute()),
        )
