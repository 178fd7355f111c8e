"""The portfolio's window and the stored report, on a generated market in a real store.

The portfolio ends `every` trading days after the last evaluation date, so prices stored after it
change nothing; the scored report is stored with its basis and read again (the page never scores)
until its points, the bars it read or the scoring version change.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import numpy as np
import pandas as pd
import pytest

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.application import evaluation_service
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.evaluation.infrastructure.persistence.report_store import SqlEvaluationReportStore
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.evaluation.market import END, populate, symbols

NAMES = symbols(6)


@pytest.fixture
def frames(database: Database) -> dict[str, pd.DataFrame]:
    return populate(database, NAMES)


@pytest.fixture
def app(settings: Settings, frames: dict[str, pd.DataFrame]) -> Iterator[AppContainer]:
    container = AppContainer(settings)
    yield container
    container.close()


def config(**changes: object) -> EvaluationConfig:
    base = dict(symbols=NAMES, start=date(2022, 3, 1), end=date(2023, 6, 30), every=20, horizons=[5, 20])
    return EvaluationConfig.model_validate({**base, **changes})


def store_bars(database: Database, bars: pd.DataFrame) -> None:
    """Write these bars over the stored ones (the way an import or a sync corrects prices)."""
    MarketDataImportService(SqlMarketDataRepository(database)).import_frames("changed", {"bars": bars})


def scaled(bars: pd.DataFrame, mask: pd.Series, seed: int = 3) -> pd.DataFrame:
    """The bars under `mask` with every price multiplied by its own random factor (0.7 to 1.4)."""
    chosen = bars[mask].copy()
    factor = np.random.default_rng(seed).uniform(0.7, 1.4, len(chosen))
    for column in ("open", "high", "low", "close", "pre_close"):
        chosen[column] = (chosen[column] * factor).round(2)
    chosen["high"] = chosen[["open", "high", "close"]].max(axis=1)
    chosen["low"] = chosen[["open", "low", "close"]].min(axis=1)
    return chosen


def test_the_portfolio_ends_every_trading_days_after_the_last_date_and_later_prices_change_nothing(
    app: AppContainer, frames: dict[str, pd.DataFrame], database: Database
) -> None:
    cfg = config()
    first = app.evaluation.service.run(cfg)
    calendar = sorted({d.date() for d in frames["bars"]["trade_date"]})  # every symbol trades on them
    last = max(p.as_of for p in first.points)
    expected_end = calendar[calendar.index(last) + cfg.every]
    window = first.portfolio["window"]
    assert window == {
        "start": min(p.as_of for p in first.points).isoformat(),
        "end": expected_end.isoformat(),
        "complete": True,
    }
    assert (
        first.portfolio["dates"][-1] == expected_end.isoformat() and expected_end < END
    )  # not the newest bar

    bars = frames["bars"]
    store_bars(database, scaled(bars, bars["trade_date"] > pd.Timestamp(expected_end)))
    second = app.evaluation.service.run(cfg)  # scored again from the changed store
    assert second.portfolio == first.portfolio  # curves, benchmark, metrics with and without costs
    assert [p.model_dump() for p in second.points] == [p.model_dump() for p in first.points]
    assert second.metrics == first.metrics

    store_bars(database, scaled(bars, bars["trade_date"] == pd.Timestamp(expected_end)))
    inside = app.evaluation.service.run(cfg)  # the window's last day does count
    assert inside.portfolio["curves"]["buy_and_hold"][-1] != first.portfolio["curves"]["buy_and_hold"][-1]


def test_the_stored_report_is_read_again_until_a_bar_it_read_or_the_scoring_changes(
    app: AppContainer, frames: dict[str, pd.DataFrame], database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = app.evaluation.service
    report = service.run(config())
    job_id = report.job_id
    basis = SqlEvaluationReportStore(database).basis(job_id)
    assert basis is not None and basis.done == len(report.points) and basis.failed == 0
    assert basis.bars_through == date.fromisoformat(report.portfolio["window"]["end"])  # 20 days: both ends

    stored = service.overview(job_id)
    assert service.overview(job_id).scored_at == stored.scored_at  # read, not scored
    assert stored.report.metrics == report.metrics and stored.report.summary == report.summary
    assert stored.report.points == [] and len(stored.verdicts.symbol) == len(report.points)
    again = service.report(job_id)
    assert again.model_dump_json() == report.model_copy(update={"resumed": 0}).model_dump_json()

    bars = frames["bars"]
    store_bars(database, scaled(bars, bars["trade_date"] > pd.Timestamp(basis.bars_through)))
    assert service.overview(job_id).scored_at == stored.scored_at  # bars it never read

    store_bars(database, scaled(bars, bars["trade_date"] == pd.Timestamp(date(2022, 9, 1))))
    changed = service.overview(job_id)
    assert changed.scored_at > stored.scored_at  # a bar it read: scored again, and stored
    assert changed.report.portfolio != stored.report.portfolio
    assert service.overview(job_id).scored_at == changed.scored_at

    monkeypatch.setattr(evaluation_service, "SCORING_VERSION", evaluation_service.SCORING_VERSION + 1)
    assert service.overview(job_id).scored_at > changed.scored_at  # new scoring code: scored again


def test_a_report_that_wanted_days_the_store_lacked_is_scored_again_when_they_come(
    app: AppContainer, frames: dict[str, pd.DataFrame], database: Database
) -> None:
    service = app.evaluation.service
    report = service.run(config(start=date(2024, 3, 1), end=END))
    job_id = report.job_id
    assert report.portfolio["window"]["complete"] is False  # the store ends before the last holding does
    assert report.portfolio["dates"][-1] == END.isoformat()
    assert SqlEvaluationReportStore(database).basis(job_id).bars_through is None  # type: ignore[union-attr]
    unknown = sum(p.forward_returns["20"] is None for p in report.points)
    assert unknown > 0
    first = service.overview(job_id)

    bars = frames["bars"]
    last_days = bars[bars["trade_date"] == pd.Timestamp(END)]
    later = pd.concat(
        [last_days.assign(trade_date=day) for day in pd.bdate_range(END, periods=30)[1:]], ignore_index=True
    )
    store_bars(database, later)  # the days after: known now
    rescored = service.overview(job_id)
    assert rescored.scored_at > first.scored_at
    assert sum(r is None for r in rescored.verdicts.forward["20"]) < unknown
    assert rescored.report.portfolio["window"]["complete"] is True
