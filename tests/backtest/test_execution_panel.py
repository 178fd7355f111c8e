"""The trading panel from daily bars: adjusted and raw prices, suspensions, limit prices, slicing."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from stockdesk.backtest.application import ExecutionRules, execute, limit_lookup, trading_panel
from stockdesk.shared.errors import BadRequestException
from tests.backtest.execution_support import rates

NAN = float("nan")
T = pd.Timestamp
COLUMNS = ["symbol", "trade_date", "open", "close", "pre_close", "adj_factor", "volume"]
BARS = pd.DataFrame(
    [
        ("600000.SH", "2024-03-01", 10.0, 10.0, 9.9, 1.0, 100),
        ("600000.SH", "2024-03-04", 11.0, 11.0, 10.0, 1.0, 100),  # opens at limit-up 10 x 1.1
        # 03-05: no bar (suspended)
        ("600000.SH", "2024-03-06", 10.5, 10.5, NAN, 2.0, 100),  # no pre_close: the last close 11 counts
        ("AAPL", "2024-03-01", 170.0, 171.0, 169.0, 1.0, 100),
        ("AAPL", "2024-03-04", 171.0, 172.0, 171.0, 1.0, 100),
        ("AAPL", "2024-03-05", 172.0, 173.0, 172.0, 1.0, 100),
        ("AAPL", "2024-03-06", 173.0, 174.0, 173.0, 1.0, 0),  # volume 0: suspended
    ],
    columns=COLUMNS,
)
MARKETS = {"600000.SH": "cn", "AAPL": "US", "UNUSED.SZ": "CN"}


def test_the_panel_holds_adjusted_and_raw_prices_and_limits_with_suspensions_as_nan() -> None:
    panel = trading_panel(BARS, MARKETS, limit_lookup({}))
    days = [T("2024-03-01"), T("2024-03-04"), T("2024-03-05"), T("2024-03-06")]
    assert list(panel.close.index) == days
    assert list(panel.close.columns) == ["600000.SH", "AAPL"]
    assert panel.markets == {"600000.SH": "CN", "AAPL": "US"}
    cn = "600000.SH"
    assert math.isnan(panel.close.loc[days[2], cn]) and math.isnan(panel.open.loc[days[2], cn])
    assert math.isnan(panel.close.loc[days[3], "AAPL"])
    # 03-06: adjusted open = 10.5 x 2.0; raw open 10.5; limits from the last trading close 11: 12.1 / 9.9
    assert panel.open.loc[days[3], cn] == 21.0 and panel.raw_open.loc[days[3], cn] == 10.5
    assert panel.limit_up.loc[days[1], cn] == 11.0 and panel.limit_down.loc[days[1], cn] == 9.0
    assert (panel.limit_up.loc[days[3], cn], panel.limit_down.loc[days[3], cn]) == (12.1, 9.9)
    assert panel.limit_up["AAPL"].isna().all()  # no daily limit outside China
    assert panel.raw_close is not None and panel.raw_close.loc[days[3], cn] == 10.5
    assert trading_panel(BARS, MARKETS).limit_up.isna().all().all()  # no limit source: no limits


def test_between_slices_every_frame_inclusively() -> None:
    panel = trading_panel(BARS, MARKETS, limit_lookup({})).between("2024-03-04", "2024-03-05")
    assert list(panel.close.index) == [T("2024-03-04"), T("2024-03-05")]
    assert panel.limit_up.index.equals(panel.close.index) and panel.raw_open.index.equals(panel.close.index)
    assert len(trading_panel(BARS, MARKETS).between("2024-03-05", None).close) == 2


def test_every_symbol_needs_a_market() -> None:
    with pytest.raises(BadRequestException, match="AAPL"):
        trading_panel(BARS, {"600000.SH": "CN"})


def test_a_panel_from_bars_refuses_the_limit_up_buy_end_to_end() -> None:
    panel = trading_panel(BARS, MARKETS, limit_lookup({}))
    decisions = pd.DataFrame({"600000.SH": [0.5], "AAPL": [0.4]}, index=[T("2024-03-01")])
    zero = rates(**{"600000.SH": 0.0, "AAPL": 0.0})
    sim = execute(
        panel, decisions, stop_loss=None, buy_cost=zero, sell_cost=zero, rules=ExecutionRules(capital=None)
    )
    # 03-04: the A-share opens at its limit-up 11.0: refused; AAPL bought 0.4 at 171, closes at 172
    assert sim.blocked_by_limit == 1
    assert sim.trades["symbol"].tolist() == ["AAPL"]
    assert sim.nav.iloc[1] == pytest.approx(0.6 + 0.4 * 172 / 171)
