"""The valuation snapshot across a stock split: PE, EPS TTM, BPS and the Graham value on the share
basis of the as-of date, in the snapshot path and in the evaluation's batch path.

Figures worked out by hand in tests/data_engineering/fixtures/sec_split/README.md (traded close
132.00 before the 10-for-1 split of 2024-06-10, 13.20 after it).
"""

from __future__ import annotations

import math
from datetime import date
from pathlib import Path

import pytest

from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.research.application.code_signals import code_signal
from stockdesk.research.container import ResearchContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.finance import round_half_up
from tests.data_engineering.split_support import AFTER, BEFORE, RESTATED, SPLIT_DAY, SYMBOL, load, yahoo_csv

EXPECTED = {  # as of: (price, EPS TTM, BPS)
    BEFORE: (132.0, 11.0, 53.0),
    AFTER: (13.2, 1.1, 5.3),
    RESTATED: (13.2, 1.2, 5.65),
}


def research(settings: Settings, database: Database) -> ResearchContainer:
    data = DataEngineeringContainer(settings, database)
    return ResearchContainer(
        basic_info=data.stock_basic_info,
        valuations=data.valuations,
        finance=data.finance,
        bars=data.daily_bars,
        llm_service=lambda: None,  # type: ignore[arg-type,return-value]
        search=lambda: None,  # type: ignore[arg-type,return-value]
        securities=data.securities,
        market_frames=data.market_frames,
    )


@pytest.fixture
def container(settings: Settings, database: Database, tmp_path: Path) -> ResearchContainer:
    load(SqlMarketDataRepository(database), prices=yahoo_csv(tmp_path / "TENX.csv", {SPLIT_DAY: 10.0}))
    return research(settings, database)


def test_pe_eps_and_graham_value_are_on_the_as_of_dates_share_basis(container: ResearchContainer) -> None:
    for day, (price, eps, bps) in EXPECTED.items():
        snapshot = container.valuation_modeler.build_snapshot(SYMBOL, day)
        graham = math.sqrt(22.5 * eps * bps)
        assert (snapshot.current_price, snapshot.eps_ttm, snapshot.bps) == pytest.approx((price, eps, bps)), (
            day
        )
        assert snapshot.pe_ttm == round_half_up(price / eps, 2), day
        assert snapshot.graham_intrinsic_val == round_half_up(graham, 2), day
        assert snapshot.graham_safety_margin == round_half_up((graham - price) / price * 100, 1), day


def test_the_batch_path_gives_the_snapshots_valuation_signal_across_the_split(
    container: ResearchContainer,
) -> None:
    days = [*EXPECTED, date(2024, 6, 7), SPLIT_DAY, date(2024, 7, 25)]
    evidence = container.rules_signals.evidence({SYMBOL: days}, ["valuation_modeler"])
    for day in days:
        snapshot = container.valuation_modeler.build_snapshot(SYMBOL, day).model_dump(mode="json")
        expected = code_signal("valuation_modeler", snapshot).model_dump(mode="json")
        assert evidence[SYMBOL][day].code_signals["valuation_modeler"] == expected, day
