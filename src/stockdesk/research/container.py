"""Composition root of research: ports -> adapters, services for the CLI, REST and Coordinator."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from stockdesk.data_engineering.application import (
    GetFinanceForTickerUseCase,
    GetStockBasicInfoUseCase,
    GetValuationDailiesForTickerUseCase,
)
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.research.application.valuation_modeler_service import ValuationModelerService
from stockdesk.research.domain.ports.llm import ILLMPort
from stockdesk.research.domain.ports.valuation import (
    IValuationDataPort,
    IValuationModelerAgentPort,
    IValuationSnapshotBuilder,
)
from stockdesk.research.infrastructure.adapters.llm_adapter import LLMAdapter
from stockdesk.research.infrastructure.adapters.valuation_data_adapter import ValuationDataAdapter
from stockdesk.research.infrastructure.agents.valuation_modeler.agent import ValuationModelerAgent
from stockdesk.research.infrastructure.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder


class ResearchContainer:
    def __init__(
        self,
        *,
        basic_info: GetStockBasicInfoUseCase,
        valuations: GetValuationDailiesForTickerUseCase,
        finance: GetFinanceForTickerUseCase,
        llm_service: Callable[[], LLMService],
    ):
        """`llm_service` is a factory: the model is only started when an expert really asks it."""
        self._basic_info = basic_info
        self._valuations = valuations
        self._finance = finance
        self._llm_service = llm_service

    @cached_property
    def llm(self) -> ILLMPort:
        return LLMAdapter(self._llm_service())

    # valuation modeler --------------------------------------------------------------------------
    @cached_property
    def valuation_data(self) -> IValuationDataPort:
        return ValuationDataAdapter(self._basic_info, self._valuations, self._finance)

    @cached_property
    def valuation_snapshot_builder(self) -> IValuationSnapshotBuilder:
        return ValuationSnapshotBuilder()

    @cached_property
    def valuation_agent(self) -> IValuationModelerAgentPort:
        return ValuationModelerAgent(self.llm)

    @property
    def valuation_modeler(self) -> ValuationModelerService:
        return ValuationModelerService(
            self.valuation_data, self.valuation_snapshot_builder, self.valuation_agent
        )
