"""Composition root of research: agents for their ports, services for the CLI, REST and Coordinator."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import cache, cached_property

from stockdesk.data_engineering.application import (
    GetDailyBarsUseCase,
    GetFinanceForTickerUseCase,
    GetMarketFramesUseCase,
    GetStockBasicInfoUseCase,
    GetValuationDailiesForTickerUseCase,
    ListSecuritiesUseCase,
)
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.research.application.catalyst_detective_service import CatalystDetectiveService
from stockdesk.research.application.chart_data_service import ChartDataService
from stockdesk.research.application.chart_series import ChartSeriesBuilder
from stockdesk.research.application.factors import FactorService
from stockdesk.research.application.financial_auditor_service import FinancialAuditorService
from stockdesk.research.application.macro_intelligence_service import MacroIntelligenceService
from stockdesk.research.application.rules_history import RulesHistory
from stockdesk.research.application.rules_signal_service import RulesSignalService
from stockdesk.research.application.screen.factor_panel import FactorPanelBuilder
from stockdesk.research.application.screen.figures_builder import ScreenFiguresBuilder
from stockdesk.research.application.screen.panel import ScreenPanelReader
from stockdesk.research.application.screen.service import ScreenService
from stockdesk.research.application.search_data import CatalystDataAdapter, MacroDataAdapter
from stockdesk.research.application.search_result_filter import (
    ISearchResultFilter,
    RuleBasedResultFilter,
)
from stockdesk.research.application.signal_model.market import ModelMarket
from stockdesk.research.application.signal_model.service import SignalModelService
from stockdesk.research.application.snapshot.financial_snapshot_builder import FinancialSnapshotBuilder
from stockdesk.research.application.snapshot.rules_fields import RulesFieldsBuilder
from stockdesk.research.application.snapshot.search_snapshot_builder import SearchSnapshotBuilder
from stockdesk.research.application.snapshot.technical_snapshot_builder import TechnicalSnapshotBuilder
from stockdesk.research.application.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder
from stockdesk.research.application.stock_data import StockData
from stockdesk.research.application.technical_analyst_service import TechnicalAnalystService
from stockdesk.research.application.valuation_modeler_service import ValuationModelerService
from stockdesk.research.domain.ports.choices import IExpertChoicePort
from stockdesk.research.domain.ports.financial import IFinancialAuditorAgentPort
from stockdesk.research.domain.ports.soft_intel import (
    ICatalystDetectiveAgentPort,
    IMacroIntelligenceAgentPort,
)
from stockdesk.research.domain.ports.technical import ITechnicalAnalystAgentPort
from stockdesk.research.domain.ports.valuation import IValuationModelerAgentPort
from stockdesk.research.infrastructure.agents.catalyst_detective.agent import CatalystDetectiveAgent
from stockdesk.research.infrastructure.agents.choices.agent import ExpertChoiceAgent
from stockdesk.research.infrastructure.agents.financial_auditor.agent import FinancialAuditorAgent
from stockdesk.research.infrastructure.agents.macro_intelligence.agent import MacroIntelligenceAgent
from stockdesk.research.infrastructure.agents.structured_agent import SAMPLING
from stockdesk.research.infrastructure.agents.technical_analyst.agent import TechnicalAnalystAgent
from stockdesk.research.infrastructure.agents.valuation_modeler.agent import ValuationModelerAgent
from stockdesk.web_search.application.search_service import WebSearchService


class ResearchContainer:
    def __init__(
        self,
        *,
        basic_info: GetStockBasicInfoUseCase,
        valuations: GetValuationDailiesForTickerUseCase,
        finance: GetFinanceForTickerUseCase,
        bars: GetDailyBarsUseCase,
        llm_service: Callable[[], LLMService],
        search: Callable[[], WebSearchService],
        securities: ListSecuritiesUseCase | None = None,
        market_frames: GetMarketFramesUseCase | None = None,
        output_style: Callable[[], str] = lambda: "prose",
        expert_notes: bool = False,
    ):
        """`llm_service` and `search` are factories: nothing starts until an expert really asks.
        `output_style` "choices": the snapshot experts' model picks a verdict and cards, code writes;
        `expert_notes`: it may also add one short note (checked; dropped when too long or wrong)."""
        self._basic_info = basic_info
        self._valuations = valuations
        self._finance = finance
        self._bars = bars
        self._llm_service = llm_service
        self._search = search
        self._securities = securities
        self._market_frames = market_frames
        self._output_style = output_style
        self._expert_notes = expert_notes

    @cached_property
    def llm(self) -> LLMHandle:
        return LLMHandle(self._llm_service(), SAMPLING)

    @cached_property
    def choice_agent(self) -> IExpertChoicePort:
        return ExpertChoiceAgent(self.llm, notes=self._expert_notes)

    @property
    def chooser(self) -> IExpertChoicePort | None:
        """The choices agent when the LLM's output style is "choices", else None (prose mode)."""
        return self.choice_agent if self._output_style() == "choices" else None

    @cached_property
    def stock_data(self) -> StockData:
        """What the three numeric experts and the charts read of one symbol."""
        return StockData(self._basic_info, self._bars, self._valuations, self._finance)

    # valuation modeler --------------------------------------------------------------------------
    @cached_property
    def valuation_snapshot_builder(self) -> ValuationSnapshotBuilder:
        return ValuationSnapshotBuilder()

    @cached_property
    def valuation_agent(self) -> IValuationModelerAgentPort:
        return ValuationModelerAgent(self.llm)

    @property
    def valuation_modeler(self) -> ValuationModelerService:
        return ValuationModelerService(
            self.stock_data, self.valuation_snapshot_builder, self.valuation_agent, self.chooser
        )

    # technical analyst --------------------------------------------------------------------------
    @cached_property
    def technical_snapshot_builder(self) -> TechnicalSnapshotBuilder:
        return TechnicalSnapshotBuilder()

    @cached_property
    def technical_agent(self) -> ITechnicalAnalystAgentPort:
        return TechnicalAnalystAgent(self.llm)

    @property
    def technical_analyst(self) -> TechnicalAnalystService:
        return TechnicalAnalystService(
            self.stock_data, self.technical_snapshot_builder, self.technical_agent, self.chooser
        )

    # financial auditor --------------------------------------------------------------------------
    @cached_property
    def financial_snapshot_builder(self) -> FinancialSnapshotBuilder:
        return FinancialSnapshotBuilder()

    @cached_property
    def financial_agent(self) -> IFinancialAuditorAgentPort:
        return FinancialAuditorAgent(self.llm)

    @property
    def financial_auditor(self) -> FinancialAuditorService:
        return FinancialAuditorService(
            self.stock_data, self.financial_snapshot_builder, self.financial_agent, self.chooser
        )

    # macro intelligence and catalyst detective: search -> context -> LLM ------------------------
    @cached_property
    def search_result_filter(self) -> ISearchResultFilter:
        """Bound here only: swap in another ISearchResultFilter without touching the search data."""
        return RuleBasedResultFilter()

    @cached_property
    def search_snapshot_builder(self) -> SearchSnapshotBuilder:
        return SearchSnapshotBuilder()

    @cached_property
    def macro_data(self) -> MacroDataAdapter:
        return MacroDataAdapter(self._basic_info, self._search(), self.search_result_filter)

    @cached_property
    def macro_agent(self) -> IMacroIntelligenceAgentPort:
        return MacroIntelligenceAgent(self.llm)

    @property
    def macro_intelligence(self) -> MacroIntelligenceService:
        return MacroIntelligenceService(
            self.macro_data, self.search_snapshot_builder, self.macro_agent, self.chooser
        )

    @cached_property
    def catalyst_data(self) -> CatalystDataAdapter:
        return CatalystDataAdapter(self._basic_info, self._search(), self.search_result_filter)

    @cached_property
    def catalyst_agent(self) -> ICatalystDetectiveAgentPort:
        return CatalystDetectiveAgent(self.llm)

    @property
    def catalyst_detective(self) -> CatalystDetectiveService:
        return CatalystDetectiveService(
            self.catalyst_data, self.search_snapshot_builder, self.catalyst_agent, self.chooser
        )

    # charts: the experts' data, series computed in code, no LLM -----------------------------------
    @cached_property
    def chart_series_builder(self) -> ChartSeriesBuilder:
        return ChartSeriesBuilder()

    @property
    def chart_data(self) -> ChartDataService:
        return ChartDataService(self.stock_data, self.chart_series_builder)

    # rules signals in batch (walk-forward evaluation): history once, fields per date ----------------
    @property
    def rules_signals(self) -> RulesSignalService:
        if self._securities is None or self._market_frames is None:
            raise RuntimeError("ResearchContainer needs securities and market_frames for rules signals")
        return RulesSignalService(
            RulesHistory(self._securities, self._market_frames),
            RulesFieldsBuilder(),
            {
                "macro_intelligence": lambda symbol, day: self.macro_intelligence.build_snapshot(symbol, day),
                "catalyst_detective": lambda symbol, day: self.catalyst_detective.build_snapshot(symbol, day),
            },
            nothing_to_find=self._nothing_to_find(),
            factors=self.factors,
        )

    # whole-market screen: one read per table, figures across all symbols -------------------------
    @property
    def screen(self) -> ScreenService:
        if self._securities is None or self._market_frames is None:
            raise RuntimeError("ResearchContainer needs securities and market_frames for the screen")
        panel = ScreenPanelReader(self._securities, self._basic_info, self._market_frames)
        return ScreenService(panel, ScreenFiguresBuilder())

    @property
    def factors(self) -> FactorService:
        """The factor library over the store (what the signal model reads)."""
        if self._securities is None or self._market_frames is None:
            raise RuntimeError("ResearchContainer needs securities and market_frames for factors")
        return FactorService(FactorPanelBuilder(self._securities, self._market_frames))

    @cached_property
    def signal_model(self) -> SignalModelService:
        """The walk-forward signal model over the store, at one symbol and date (analyze)."""
        if self._securities is None or self._market_frames is None:
            raise RuntimeError("ResearchContainer needs securities and market_frames for the signal model")
        return SignalModelService(self.factors, ModelMarket(self._securities, self._market_frames))

    def _nothing_to_find(self) -> Callable[[date], bool]:
        """Searches as of a day before the store's first text find nothing, if only the store is
        searched. Decided once per service, on first use (numeric experts never build the search)."""

        @cache
        def findable_from() -> date | None:
            """The first day a search can find anything; None: any day (a web provider is set)."""
            if self._market_frames is None or self._search().order != ["local"]:
                return None
            return self._market_frames.first_text_date() or date.max

        return lambda day: (first := findable_from()) is not None and day < first
