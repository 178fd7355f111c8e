"""The signal model at analysis time, on a generated market in a real store.

`analyze --rules-only` gives the walk-forward model's verdict (action, calibrated probability per
horizon, contributions), and that verdict as of D does not move when every price after D changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stockdesk.coordinator.application import ResearchRequest
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.evaluation.market import market_frames, populate, symbols

NAMES = symbols(8)
AS_OF = date(2023, 9, 15)


@pytest.fixture
def app(settings: Settings, database: Database) -> Iterator[AppContainer]:
    populate(database, NAMES)
    container = AppContainer(settings)
    yield container
    container.close()


def test_the_rules_verdict_is_the_signal_models_own(app: AppContainer) -> None:
    session = app.coordinator.service.run(ResearchRequest(symbol=NAMES[0], as_of=AS_OF, rules_only=True))
    verdict = session.verdict
    model = verdict["signal_model"]
    assert model is not None and model["universe"] == len(NAMES)
    assert verdict["action"] == model["action"]
    assert set(model["probability_up"]) == {"5", "20", "60"}
    assert set(model["contributions"]) == {"valuation_modeler", "technical_analyst", "financial_auditor"}
    if verdict["calibrated"]:  # the confidence is the calibrated probability that the action is right
        p = verdict["probability_up"]["20"]
        expected = {"BUY": p, "SELL": 1 - p}.get(verdict["action"])
        if expected is not None:  # the agreement bound still holds, and a cut is said
            cap = verdict["support"]["cap"]
            assert verdict["confidence"] == pytest.approx(min(expected, cap), abs=1e-4)
            assert (expected <= cap + 1e-4) or any("stays" in a["why"] for a in verdict["adjustments"])
        assert verdict["calibration"]["20"]["n"] >= 100
    else:
        assert verdict["confidence"] <= 0.6 and verdict["probability_up"] == {}
    assert "signal model" in verdict["reasoning"]


def store_with(frames: dict[str, pd.DataFrame], path: Path) -> AppContainer:
    settings = Settings(database_url=f"sqlite:///{path}")
    database = Database(settings.effective_database_url)
    MarketDataImportService(SqlMarketDataRepository(database)).import_frames("test", frames)
    database.dispose()
    return AppContainer(settings)


def test_the_model_as_of_d_ignores_every_price_after_d(tmp_path: Path, isolated_home: Path) -> None:
    frames = market_frames(NAMES)
    changed = {k: v.copy() for k, v in frames.items()}
    bars = changed["bars"]
    later = pd.to_datetime(bars["trade_date"]) > pd.Timestamp(AS_OF)
    rng = np.random.default_rng(11)
    scale = rng.uniform(0.5, 1.5, later.sum())  # one factor per bar keeps each bar consistent
    for column in ("open", "high", "low", "close", "pre_close"):
        if column in bars:
            bars.loc[later, column] = (bars.loc[later, column] * scale).round(2)
    assert later.any()
    views = []
    for name, data in (("a.db", frames), ("b.db", changed)):
        app = store_with(data, tmp_path / name)
        try:
            views.append(app.research.signal_model.view(NAMES[2], AS_OF))
        finally:
            app.close()
    assert views[0] is not None and views[0] == views[1]


def test_a_batch_on_one_date_runs_the_market_once(app: AppContainer) -> None:
    service = app.research.signal_model
    calls = []
    run = service._run

    def counted(*args: object) -> object:
        calls.append(args)
        return run(*args)  # type: ignore[arg-type]

    service._run = counted  # type: ignore[method-assign]
    views = [service.view(symbol, AS_OF) for symbol in NAMES[:3]]
    assert all(v is not None for v in views) and len({v.symbol for v in views if v}) == 3
    assert len(calls) == 3 and len(service._runs) == 1
