"""Composition root of the strategy lab: store adapter, template, sandbox, backtests, the loop and its LLM."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from stockdesk.backtest.application import CostModel
from stockdesk.data_engineering.application import (
    GetFinanceForTickerUseCase,
    GetMarketFramesUseCase,
    ListSecuritiesUseCase,
)
from stockdesk.llm_platform.application.llm_handle import LLMHandle, Sampling
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.strategy_lab.application.autonomous_loop import AutonomousLoop
from stockdesk.strategy_lab.application.backtest_service import BacktestService
from stockdesk.strategy_lab.application.code_generator import TemplateCodeGenerator
from stockdesk.strategy_lab.application.market_data import StrategyMarketData
from stockdesk.strategy_lab.application.service import StrategyLabService
from stockdesk.strategy_lab.application.sweep_service import SweepService
from stockdesk.strategy_lab.application.sweep_trials import SweepTrials
from stockdesk.strategy_lab.infrastructure.agents.strategist.agent import SAMPLING as STRATEGIST_SAMPLING
from stockdesk.strategy_lab.infrastructure.agents.strategist.agent import StrategistAgent
from stockdesk.strategy_lab.infrastructure.persistence.run_repository import SqlStrategyRunRepository
from stockdesk.strategy_lab.infrastructure.sandbox.process_sandbox import ProcessSandbox, SandboxLimits
from stockdesk.strategy_lab.infrastructure.templates.family_templates import FamilyTemplates


class StrategyLabContainer:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        *,
        securities: ListSecuritiesUseCase,
        frames: GetMarketFramesUseCase,
        finance: GetFinanceForTickerUseCase,
        llm_service: Callable[[], LLMService],
    ):
        """`llm_service` is a factory: only `strategy run` starts a model."""
        self._settings = settings
        self._database = database
        self._market = StrategyMarketData(securities, frames, finance)
        self._llm_service = llm_service

    @cached_property
    def template(self) -> FamilyTemplates:
        return FamilyTemplates()

    @cached_property
    def generator(self) -> TemplateCodeGenerator:
        return TemplateCodeGenerator(self.template)

    @cached_property
    def sandbox(self) -> ProcessSandbox:
        limits = SandboxLimits(
            cpu_seconds=self._settings.strategy_cpu_seconds,
            memory_mb=self._settings.strategy_memory_mb,
            timeout_seconds=self._settings.strategy_timeout_seconds,
        )
        return ProcessSandbox(self.template, limits)

    @cached_property
    def backtests(self) -> BacktestService:
        costs = {m: CostModel.model_validate(c) for m, c in self._settings.strategy_costs.items()}
        return BacktestService(self._market, self.sandbox, costs or None)

    @cached_property
    def runs(self) -> SqlStrategyRunRepository:
        return SqlStrategyRunRepository(self._database)

    def loop(self) -> AutonomousLoop:
        strategist = StrategistAgent(self._strategist_llm())
        return AutonomousLoop(strategist, self.generator, self.backtests, self.runs)

    @cached_property
    def service(self) -> StrategyLabService:
        return StrategyLabService(self.backtests, self.runs, self.loop)

    @cached_property
    def sweeps(self) -> SweepService:
        return SweepService(SqlTaskStore(self._database), self.backtests)

    @cached_property
    def sweep_trials(self) -> SweepTrials:
        """A worker's side of a sweep (its panel cached here); a proposal's strategist per seed."""
        return SweepTrials(self.backtests, self.generator, self._strategist)

    def _strategist_llm(self) -> LLMHandle:
        """The strategist's handle: its sampling, at the configured temperature."""
        sampling = Sampling(self._settings.strategy_temperature, STRATEGIST_SAMPLING.max_tokens)
        return LLMHandle(self._llm_service(), sampling)

    def _strategist(self, seed: int) -> StrategistAgent:
        return StrategistAgent(self._strategist_llm(), seed=seed)
