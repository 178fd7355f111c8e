"""Composition root of the coordinator: gateways over the other contexts, the session store."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property

from stockdesk.coordinator.application import LessonSource, ResearchCoordinatorService
from stockdesk.coordinator.application.gateways import (
    ChartBuilder,
    DebateGateway,
    ExpertRunner,
    JudgeGateway,
    ModelViewBuilder,
    ResearchGateway,
    SnapshotBuilder,
)
from stockdesk.coordinator.application.holdings import HoldingReader
from stockdesk.coordinator.application.llm_run_scope import LLMRunScope
from stockdesk.coordinator.application.verdict_ledger import VerdictLedger
from stockdesk.coordinator.infrastructure.persistence.session_repository import (
    SqlResearchSessionRepository,
)
from stockdesk.data_engineering.application import CheckAsOfUseCase, GetStockBasicInfoUseCase
from stockdesk.debate.application import DebateService
from stockdesk.judge.application import JudgeService
from stockdesk.ledger.application import LedgerService
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.portfolio.application import HoldingsService
from stockdesk.shared.db import Database


class CoordinatorContainer:
    def __init__(
        self,
        *,
        database: Database,
        experts: Mapping[str, Callable[[], ExpertRunner]],
        snapshots: Mapping[str, Callable[[], SnapshotBuilder]] | None = None,
        charts: Callable[[], ChartBuilder] | None = None,
        securities: GetStockBasicInfoUseCase,
        debate: Callable[[], DebateService],
        judge: Callable[[], JudgeService],
        llm_service: Callable[[], LLMService],
        as_of_check: CheckAsOfUseCase | None = None,
        model: Callable[[], ModelViewBuilder] | None = None,
        ledger: Callable[[], LedgerService] | None = None,
        lessons: LessonSource | None = None,
        holdings: Callable[[], HoldingsService] | None = None,
    ):
        """Every argument is a factory (`lessons` builds the track record it reads on its first call):
        nothing is built until a research session needs it."""
        self._database = database
        self._experts = experts
        self._snapshots = snapshots or {}
        self._charts = charts
        self._securities = securities
        self._debate = debate
        self._judge = judge
        self._llm_service = llm_service
        self._as_of_check = as_of_check
        self._model = model  # the signal model's view builder (None: rules use the code composite)
        self._ledger = ledger  # where saved verdicts are appended (None: not recorded)
        self._lessons = lessons  # past verdicts and outcomes for a reflecting judge (None: none)
        self._holdings = holdings  # the user's positions (None: every symbol analysed as not held)

    @cached_property
    def repository(self) -> SqlResearchSessionRepository:
        return SqlResearchSessionRepository(self._database)

    @cached_property
    def service(self) -> ResearchCoordinatorService:
        """The service; building it (the first time this process reads or runs sessions) marks the
        sessions whose process died `interrupted`, so none is read as `running` forever."""
        service = self._service()
        service.mark_interrupted()
        return service

    def _service(self) -> ResearchCoordinatorService:
        return ResearchCoordinatorService(
            ResearchGateway(
                self._experts,
                self._securities,
                self._snapshots,
                self._charts,
                self._as_of_check,
                self._model,
            ),
            DebateGateway(self._debate),
            JudgeGateway(self._judge),
            self.repository,
            LLMRunScope(self._llm_service),
            ledger=(
                VerdictLedger(self._ledger, lambda run_id: self._llm_service().cost_of(run_id))
                if self._ledger is not None
                else None
            ),
            lessons=self._lessons,
            holdings=HoldingReader(self._holdings) if self._holdings is not None else None,
        )
