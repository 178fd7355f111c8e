"""Composition root of the coordinator: gateways over the other contexts, the session store."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property

from stockdesk.coordinator.application import ResearchCoordinatorService
from stockdesk.coordinator.domain.ports.gateways import ModelViewBuilder
from stockdesk.coordinator.domain.ports.lessons import ILessonSource
from stockdesk.coordinator.infrastructure.adapters.gateways import (
    ChartBuilder,
    DebateGatewayAdapter,
    ExpertRunner,
    JudgeGatewayAdapter,
    ResearchGatewayAdapter,
    SnapshotBuilder,
)
from stockdesk.coordinator.infrastructure.adapters.ledger_gateway import LedgerGatewayAdapter
from stockdesk.coordinator.infrastructure.adapters.lesson_gateway import LazyLessonSource
from stockdesk.coordinator.infrastructure.adapters.llm_run_scope import LLMRunScopeAdapter
from stockdesk.coordinator.infrastructure.persistence.session_repository import (
    SqlResearchSessionRepository,
)
from stockdesk.data_engineering.application import CheckAsOfUseCase, GetStockBasicInfoUseCase
from stockdesk.debate.application import DebateService
from stockdesk.judge.application import JudgeService
from stockdesk.ledger.application import LedgerService
from stockdesk.llm_platform.application.llm_service import LLMService
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
        lessons: Callable[[], ILessonSource] | None = None,
    ):
        """Every argument is a factory: nothing is built until a research session needs it."""
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

    @cached_property
    def repository(self) -> SqlResearchSessionRepository:
        return SqlResearchSessionRepository(self._database)

    @cached_property
    def service(self) -> ResearchCoordinatorService:
        return ResearchCoordinatorService(
            ResearchGatewayAdapter(
                self._experts,
                self._securities,
                self._snapshots,
                self._charts,
                self._as_of_check,
                self._model,
            ),
            DebateGatewayAdapter(self._debate),
            JudgeGatewayAdapter(self._judge),
            self.repository,
            LLMRunScopeAdapter(self._llm_service),
            ledger=(
                LedgerGatewayAdapter(self._ledger, lambda run_id: self._llm_service().cost_of(run_id))
                if self._ledger is not None
                else None
            ),
            lessons=LazyLessonSource(self._lessons) if self._lessons is not None else None,
        )
