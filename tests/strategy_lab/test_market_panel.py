"""The backtest window and universe read from a real store, and the notes that explain a silent zero."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from stockdesk.backtest.application import CostModel
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.domain.dtos import BacktestWindow, RunConfig
from stockdesk.strategy_lab.domain.errors import InvalidBacktestWindowError, InvalidUniverseError
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams
from tests.conftest import scripted_service
from tests.strategy_lab.support import END, PARAMS, answer, populate

RECENT = BacktestWindow(start=date(2023, 7, 1))


def container_with(settings: Settings, without: tuple[str, ...] = ()) -> AppContainer:
    container = AppContainer(settings)
    populate(container.database, without=without)
    return container


def add_newcomer(container: AppContainer, symbol: str = "600099.SH", days: int = 30) -> None:
    """A security listed a few weeks before END: too little history for the window."""
    dates = pd.bdate_range(end=END, periods=days)
    MarketDataImportService(SqlMarketDataRepository(container.database)).import_frames(
        "test",
        {
            "securities": pd.DataFrame(
                [{"symbol": symbol, "name": "新股", "market": "CN", "exchange": "SH"}]
            ),
            "bars": pd.DataFrame({"symbol": symbol, "trade_date": dates, "close": 10.0, "adj_factor": 1.0}),
        },
    )


def test_the_default_window_is_three_years_to_the_newest_bar_after_a_warm_up(settings: Settings) -> None:
    panel = container_with(settings).strategy_lab.backtests.panel(BacktestWindow())
    # 700 business days end on 2024-06-28 and start on 2021-10-25: 3 years back would leave no
    # warm-up, so scoring starts 250 calendar days after the first bar (2022-07-02, a Saturday)
    assert panel.end == END and panel.start == date(2022, 7, 4)
    assert len(panel.universe) == 6 and panel.notes == ()
    assert panel.closes.index[0] < panel.window_closes.index[0]  # warm-up before the window


def test_a_long_history_keeps_the_three_year_default(settings: Settings) -> None:
    container = AppContainer(settings)
    populate(container.database, days=1100)  # from 2020-04-13: 3 years and the warm-up fit
    panel = container.strategy_lab.backtests.panel(BacktestWindow())
    assert panel.start == date(2021, 6, 28) and panel.end == END


def test_a_symbol_without_history_in_the_window_is_left_out_with_a_note(settings: Settings) -> None:
    container = container_with(settings)
    add_newcomer(container)
    panel = container.strategy_lab.backtests.panel(RECENT)
    assert "600099.SH" not in panel.universe and len(panel.universe) == 6
    assert panel.notes == ("left out for lack of history in the window (1): 600099.SH",)


def test_windows_nobody_can_fill_are_clear_errors(settings: Settings) -> None:
    backtests = container_with(settings).strategy_lab.backtests
    with pytest.raises(InvalidUniverseError, match="no symbol has 60 daily bars"):
        backtests.panel(BacktestWindow(start=date(2024, 6, 1)))
    with pytest.raises(InvalidBacktestWindowError, match="the window is empty"):
        backtests.panel(BacktestWindow(start=date(2024, 6, 1), end=date(2024, 5, 1)))


def test_a_catalyst_without_figures_is_named_instead_of_a_silent_zero(settings: Settings) -> None:
    """Tushare's fina_indicator has no revenue: the revenue catalyst can never pass there."""
    container = container_with(settings, without=("revenue",))
    lab = container.strategy_lab
    result = lab.service.backtest(MomentumStrategyParams(**PARAMS), RECENT)
    assert result.metrics.trades == 0
    assert any("no quarterly revenue data, so the revenue catalyst never passes" in n for n in result.notes)
    assert any(n.startswith("no trades:") for n in result.notes)
    earnings = lab.service.backtest(MomentumStrategyParams(**{**PARAMS, "catalyst_type": "earnings"}), RECENT)
    assert earnings.metrics.trades > 0 and not any("profit" in n for n in earnings.notes)

    provider = ScriptedProvider([answer(catalyst_type="earnings")])
    container.__dict__["llm_service"] = scripted_service(provider)
    lab.service.execute(lab.service.create_run(RunConfig(iterations=1, window=RECENT)).id)
    prompt = provider.requests[0].messages[-1].content
    assert 'No symbol has quarterly revenue data: momentum catalyst_type "revenue" cannot trade.' in prompt


def test_the_costs_reported_are_the_ones_charged(settings: Settings) -> None:
    """An override keyed in lower case is both charged and reported (one lookup serves both)."""
    params = MomentumStrategyParams(**PARAMS)
    default = container_with(settings).strategy_lab.backtests.backtest(params, RECENT)
    dearer_settings = settings.model_copy(update={"strategy_costs": {"cn": {"buy": 0.01, "sell": 0.01}}})
    result = AppContainer(dearer_settings).strategy_lab.backtests.backtest(params, RECENT)
    assert result.costs == {"CN": CostModel(buy=0.01, sell=0.01)}
    assert default.costs["CN"] == CostModel(buy=0.0003, sell=0.0008)
    assert result.metrics.total_return < default.metrics.total_return
