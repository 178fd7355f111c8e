"""`stockdesk evaluate`'s follow-the-verdict portfolio runs through the shared execution rules: limits,
lots out of the config's capital, the A-share cost schedule plus slippage, and a costless twin."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from stockdesk.backtest.application import index_levels
from stockdesk.evaluation.application.scoring import portfolio
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.evaluation.domain.ports import SecurityInfo

DAYS = ["2024-03-01", "2024-03-04", "2024-03-05", "2024-03-06"]
BARS = pd.DataFrame(
    [("600000.SH", day, 33.33, 33.33, 33.33, 1.0, 100) for day in DAYS]
    + [
        ("600001.SH", "2024-03-01", 10.0, 10.0, 10.0, 1.0, 100),
        ("600001.SH", "2024-03-04", 11.0, 11.0, 10.0, 1.0, 100),  # opens at limit-up 10 x 1.1
        ("600001.SH", "2024-03-05", 11.0, 11.0, 11.0, 1.0, 100),
        ("600001.SH", "2024-03-06", 11.0, 11.0, 11.0, 1.0, 100),
    ],
    columns=["symbol", "trade_date", "open", "close", "pre_close", "adj_factor", "volume"],
)
SECURITIES = {s: SecurityInfo(symbol=s, name="Bank", market="CN") for s in ("600000.SH", "600001.SH")}
VERDICTS = pd.DataFrame(
    {
        "as_of": [date(2024, 3, 1)] * 2,
        "symbol": ["600000.SH", "600001.SH"],
        "action": ["BUY", "BUY"],
        "position_percent": [0.1, 0.1],  # fractions of the book, as verdicts carry them
        "filled": [True, True],  # the portfolio applies the limit itself
    }
)


def run(capital: float) -> dict:
    config = EvaluationConfig(
        symbols=list(SECURITIES), start=date(2024, 3, 1), end=date(2024, 3, 6), capital=capital
    )
    return portfolio({"rules": VERDICTS}, BARS, SECURITIES, index_levels(BARS), config)


def test_the_evaluation_portfolio_trades_whole_lots_refuses_limit_up_and_pays_a_share_costs() -> None:
    book = run(1_000_000.0)
    # 03-04: 600001.SH opens at limit-up: refused. 600000.SH: 100,000 / 3,333 = 30.003 -> 30 lots =
    # 99,990 = 0.09999 of the book, paying 0.0003 commission + 0.0005 slippage: 0.09999 x 0.0008
    # (curves are rounded to 1e-6; buying both would cost twice that: 0.99984)
    after = 1 - 0.09999 * 0.0008
    assert book["curves"]["rules"] == pytest.approx([1.0, after, after, after], abs=1e-6)
    assert book["metrics"]["rules"]["blocked_by_limit"] == 1
    assert book["metrics"]["rules"]["trades"] == 1
    assert book["metrics_without_costs"]["rules"]["total_return"] == 0.0  # flat prices, no costs
    assert book["costs"]["capital"] == 1_000_000.0


def test_the_capital_decides_the_lots() -> None:
    # 10,000 x 0.1 = 1,000 buys 1,000 / 3,333 = 0.3 lots: nothing
    book = run(10_000.0)
    assert book["curves"]["rules"] == [1.0, 1.0, 1.0, 1.0]
    assert book["metrics"]["rules"]["trades"] == 0
