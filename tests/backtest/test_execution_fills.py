"""Entry, fills and forward returns of dated verdicts on hand-built bars; the equal-weight index."""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd
import pytest

from stockdesk.backtest.application import (
    adjusted_prices,
    fills_and_returns,
    index_levels,
    limit_fraction,
    limit_lookup,
    window_returns,
)
from stockdesk.shared.errors import BadRequestException

NAN = float("nan")
T = pd.Timestamp


def bars(*rows: tuple) -> pd.DataFrame:
    """(symbol, trade_date, open, close, pre_close, adj_factor, volume) per row."""
    columns = ["symbol", "trade_date", "open", "close", "pre_close", "adj_factor", "volume"]
    frame = pd.DataFrame(list(rows), columns=columns)
    frame["trade_date"] = pd.to_datetime(frame["trade_date"]).dt.date  # as the store hands them out
    return frame


def points(*rows: tuple[str, str, str]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=["symbol", "as_of", "action"])


# --- entry ------------------------------------------------------------------------------------------

SUSPENDED = bars(
    ("600000.SH", "2024-03-01", 10.0, 10.0, 9.9, 1.0, 100),  # Friday: the verdict day
    # Monday 03-04: no bar at all
    ("600000.SH", "2024-03-05", 10.2, 10.2, 10.0, 1.0, 0),  # volume 0: suspended
    ("600000.SH", "2024-03-06", 10.3, 10.5, NAN, 1.0, 100),
    ("600000.SH", "2024-03-07", 10.6, 10.8, 10.5, 1.0, 100),
    ("600010.SH", "2024-03-01", 5.0, 5.0, 5.0, 1.0, 100),
    ("600010.SH", "2024-03-04", 5.1, 5.1, 5.0, 1.0, NAN),  # volume NaN: suspended
    ("600010.SH", "2024-03-05", 5.2, 5.3, 5.1, 1.0, 100),
)


def test_entry_is_the_next_trading_day_skipping_missing_and_zero_volume_bars() -> None:
    result = fills_and_returns(
        SUSPENDED,
        points(
            ("600000.SH", "2024-03-01", "BUY"),
            ("600000.SH", "2024-03-02", "buy"),  # a Saturday verdict
            ("600000.SH", "2024-03-06", "SELL"),
            ("600000.SH", "2024-03-07", "BUY"),  # nothing after it
            ("600010.SH", "2024-03-01", "HOLD"),
            ("000001.SZ", "2024-03-01", "BUY"),  # no bars at all
        ),
        horizons=[1, 2, 3],
    )
    assert result["entry_date"].tolist()[:3] == [T("2024-03-06"), T("2024-03-06"), T("2024-03-07")]
    assert result["entry_date"].iloc[4] == T("2024-03-05")
    assert result["entry_date"].iloc[[3, 5]].isna().all()
    assert result["entry_price"].tolist()[:3] == [10.3, 10.3, 10.6]
    assert np.isnan(result["entry_price"].iloc[3]) and np.isnan(result["entry_price"].iloc[5])
    assert result["filled"].tolist() == [True, True, True, False, True, False]
    # horizons count trading days from the entry day as day 1
    assert result["fwd_1"].iloc[0] == pytest.approx(10.5 / 10.3 - 1)
    assert result["fwd_2"].iloc[0] == pytest.approx(10.8 / 10.3 - 1)
    assert result["exit_1"].iloc[0] == T("2024-03-06") and result["exit_2"].iloc[0] == T("2024-03-07")
    # beyond the data: NaN and NaT
    assert np.isnan(result["fwd_3"].iloc[0]) and pd.isna(result["exit_3"].iloc[0])
    assert np.isnan(result["fwd_2"].iloc[2]) and result["fwd_1"].iloc[2] == pytest.approx(10.8 / 10.6 - 1)
    assert result["fwd_1"].iloc[4] == pytest.approx(5.3 / 5.2 - 1)
    assert list(result.index) == list(range(6))


def test_result_keeps_the_points_index() -> None:
    frame = points(("600000.SH", "2024-03-01", "BUY"), ("600010.SH", "2024-03-01", "SELL"))
    frame.index = pd.Index(["p", "q"])
    result = fills_and_returns(SUSPENDED, frame, horizons=[1])
    assert list(result.index) == ["p", "q"]
    assert list(result.columns) == [
        "entry_date",
        "entry_price",
        "entry_adj_open",
        "limit_up",
        "limit_down",
        "filled",
        "fwd_1",
        "exit_1",
    ]


# --- fills at price limits --------------------------------------------------------------------------


def limit_day(symbol: str, open_: float, pre_close: float = 10.0, day: str = "2024-03-05") -> list[tuple]:
    """A verdict day with a close of `pre_close`, then an entry day opening at `open_`."""
    return [
        (symbol, "2024-03-04", pre_close, pre_close, pre_close, 1.0, 100),
        (symbol, day, open_, open_, pre_close, 1.0, 100),
    ]


def test_limit_up_buy_is_not_filled_on_a_10_percent_board_but_is_on_a_20_percent_board() -> None:
    data = bars(
        *limit_day("600001.SH", 11.00), *limit_day("688001.SH", 11.00), *limit_day("600002.SH", 10.99)
    )
    symbols = ["600001.SH", "688001.SH", "600002.SH"]
    limits = {s: limit_fraction(s, None, date(2024, 3, 5)) for s in symbols}
    verdicts = points(*[(s, "2024-03-04", "BUY") for s in symbols], ("600001.SH", "2024-03-04", "SELL"))
    result = fills_and_returns(data, verdicts, horizons=[1], limits=limits)
    assert result["limit_up"].tolist() == [11.00, 12.00, 11.00, 11.00]
    assert result["filled"].tolist() == [False, True, True, True]  # a SELL at limit-up is filled
    # without limits everything with an entry fills
    assert fills_and_returns(data, verdicts, horizons=[1])["filled"].all()


def test_limit_down_sell_is_not_filled_and_missing_pre_close_uses_the_previous_close() -> None:
    rows = limit_day("600003.SH", 9.05, pre_close=10.05)  # 10.05 * 0.9 = 9.045 -> 9.05
    missing = [list(row) for row in limit_day("600004.SH", 9.05, pre_close=10.05)]
    missing[1][4] = NAN  # no pre_close on the entry day: the verdict day's close 10.05 stands in
    data = bars(*rows, *[tuple(row) for row in missing])
    verdicts = points(
        ("600003.SH", "2024-03-04", "SELL"),
        ("600003.SH", "2024-03-04", "BUY"),
        ("600003.SH", "2024-03-04", "HOLD"),
        ("600004.SH", "2024-03-04", "SELL"),
    )
    result = fills_and_returns(data, verdicts, horizons=[1], limits={"600003.SH": 0.1, "600004.SH": 0.1})
    assert result["limit_down"].tolist() == [9.05] * 4
    assert result["filled"].tolist() == [False, True, True, False]


def test_st_shares_have_a_5_percent_limit() -> None:
    data = bars(*limit_day("600005.SH", 10.50), *limit_day("600006.SH", 10.50))
    lookup = limit_lookup({"600005.SH": "*ST某某", "600006.SH": "某某股份"})
    verdicts = points(("600005.SH", "2024-03-04", "BUY"), ("600006.SH", "2024-03-04", "BUY"))
    result = fills_and_returns(data, verdicts, horizons=[1], limits=lookup)
    assert result["limit_up"].tolist() == [10.50, 11.00]
    assert result["filled"].tolist() == [False, True]


def test_chinext_limit_is_taken_on_each_entry_day() -> None:
    data = bars(
        ("300750.SZ", "2020-08-20", 10.0, 10.0, 10.0, 1.0, 100),
        ("300750.SZ", "2020-08-21", 11.0, 11.0, 10.0, 1.0, 100),  # +10 %: limit-up before the reform
        ("300750.SZ", "2020-08-24", 12.1, 12.1, 11.0, 1.0, 100),  # +10 % again: 20 % limit now
    )
    verdicts = points(("300750.SZ", "2020-08-20", "BUY"), ("300750.SZ", "2020-08-21", "BUY"))
    result = fills_and_returns(data, verdicts, horizons=[1], limits=limit_lookup({"300750.SZ": "宁德时代"}))
    assert result["limit_up"].tolist() == [11.00, 13.20]
    assert result["filled"].tolist() == [False, True]


def test_us_symbols_have_no_limit() -> None:
    data = bars(
        ("AAPL", "2024-03-04", 100.0, 100.0, 100.0, 1.0, 100),
        ("AAPL", "2024-03-05", 130.0, 131.0, NAN, 1.0, 9),
    )
    result = fills_and_returns(
        data, points(("AAPL", "2024-03-04", "BUY")), horizons=[1], limits=limit_lookup({"AAPL": "Apple"})
    )
    assert bool(result["filled"].iloc[0])
    assert np.isnan(result["limit_up"].iloc[0]) and np.isnan(result["limit_down"].iloc[0])


# --- forward returns on adjusted prices --------------------------------------------------------------


def test_forward_returns_use_adjusted_prices_across_a_dividend() -> None:
    data = bars(
        ("600007.SH", "2024-01-02", 10.0, 10.0, 10.0, NAN, 100),  # no factor yet: 1.0
        ("600007.SH", "2024-01-03", 10.0, 10.5, 10.0, 1.0, 100),  # entry
        ("600007.SH", "2024-01-04", 10.0, 10.2, 10.0, 1.05, 100),  # ex-dividend: raw falls, factor rises
        ("600007.SH", "2024-01-05", 10.2, 10.4, 10.2, NAN, 100),  # factor carried forward: 1.05
    )
    result = fills_and_returns(data, points(("600007.SH", "2024-01-02", "BUY")), horizons=[1, 2, 3, 4])
    row = result.iloc[0]
    assert row["entry_adj_open"] == pytest.approx(10.0)
    assert row["fwd_1"] == pytest.approx(10.5 / 10.0 - 1)  # 5 %
    assert row["fwd_2"] == pytest.approx(10.2 * 1.05 / 10.0 - 1)  # 7.1 %, not the raw 2 %
    assert row["fwd_3"] == pytest.approx(10.4 * 1.05 / 10.0 - 1)  # 9.2 %
    assert np.isnan(row["fwd_4"]) and pd.isna(row["exit_4"])
    assert row["exit_3"] == T("2024-01-05")
    # an entry on the ex-day: its adjusted open carries the new factor
    later = fills_and_returns(data, points(("600007.SH", "2024-01-03", "BUY")), horizons=[2])
    assert later["entry_adj_open"].iloc[0] == pytest.approx(10.5)
    assert later["fwd_2"].iloc[0] == pytest.approx(10.4 / 10.0 - 1)


def test_bad_inputs_are_bad_requests() -> None:
    good = points(("600000.SH", "2024-03-01", "BUY"))
    with pytest.raises(BadRequestException, match="horizons"):
        fills_and_returns(SUSPENDED, good, horizons=[0])
    with pytest.raises(BadRequestException, match="actions"):
        fills_and_returns(SUSPENDED, points(("600000.SH", "2024-03-01", "SHORT")), horizons=[1])
    with pytest.raises(BadRequestException, match="columns"):
        fills_and_returns(SUSPENDED.drop(columns="volume"), good, horizons=[1])
    with pytest.raises(BadRequestException, match="more than one row"):
        fills_and_returns(pd.concat([SUSPENDED, SUSPENDED.iloc[:1]]), good, horizons=[1])


# --- the equal-weight index and window returns --------------------------------------------------------

INDEX_BARS = bars(
    ("A", "2024-01-02", 9.5, 10.0, NAN, 1.0, 100),
    ("A", "2024-01-03", 10.5, 11.0, NAN, 1.0, 100),
    ("A", "2024-01-04", 11.0, 12.1, NAN, 1.0, 100),
    ("A", "2024-01-05", 12.0, 12.1, NAN, 1.0, 100),
    ("B", "2024-01-02", 10.0, 10.0, NAN, 2.0, 100),  # adjusted: 20, 20
    ("B", "2024-01-03", 10.5, 10.5, NAN, 2.0, 0),  # suspended
    ("B", "2024-01-04", 10.5, 11.0, NAN, 2.0, 100),  # adjusted: 21, 22
    ("B", "2024-01-05", 11.0, 10.45, NAN, 2.0, 100),  # adjusted: 22, 20.9
)


def test_index_levels_by_hand() -> None:
    levels = index_levels(INDEX_BARS)
    # d0: close 1.0; open = mean(9.5/10, 20/20) = 0.975
    # d1: only A traded on d0 and d1: close 1.0 * 11/10 = 1.1, open 1.0 * 10.5/10 = 1.05
    # d2: B did not trade on d1, so only A: close 1.1 * 12.1/11 = 1.21, open 1.1 * 11/11 = 1.1
    # d3: both: close 1.21 * mean(12.1/12.1, 20.9/22) = 1.21 * 0.975 = 1.17975,
    #     open 1.21 * mean(12/12.1, 22/22) = mean(1.2, 1.21) = 1.205
    assert levels["close"].tolist() == pytest.approx([1.0, 1.1, 1.21, 1.17975])
    assert levels["open"].tolist() == pytest.approx([0.975, 1.05, 1.1, 1.205])
    assert list(levels.index) == [T("2024-01-02"), T("2024-01-03"), T("2024-01-04"), T("2024-01-05")]
    windows = window_returns(
        levels,
        pd.Series([T("2024-01-03"), T("2024-01-04"), T("2024-01-05"), T("2024-01-06")], index=list("wxyz")),
        [T("2024-01-05"), T("2024-01-04"), pd.NaT, T("2024-01-05")],
    )
    assert list(windows.index) == list("wxyz")
    assert windows.iloc[:2].tolist() == pytest.approx([1.17975 / 1.05 - 1, 1.21 / 1.1 - 1])
    assert windows.iloc[2:].isna().all()  # no exit; an entry day the index does not have


def test_one_symbol_index_window_is_its_own_forward_return() -> None:
    levels = index_levels(INDEX_BARS, symbols=["B"])
    assert levels["close"].tolist() == pytest.approx([1.0, 1.1, 1.045])  # 20, 22, 20.9 over 20
    assert levels["open"].tolist() == pytest.approx([1.0, 1.05, 1.1])
    verdicts = points(("B", "2024-01-02", "BUY"), ("B", "2024-01-03", "SELL"))
    result = fills_and_returns(INDEX_BARS, verdicts, horizons=[1, 2])
    for h in (1, 2):
        own = window_returns(levels, result["entry_date"], result[f"exit_{h}"])
        assert own.tolist() == pytest.approx(result[f"fwd_{h}"].tolist(), nan_ok=True)
    assert result["fwd_2"].iloc[0] == pytest.approx(20.9 / 21 - 1)


def test_adjusted_prices_are_wide_panels_with_gaps_for_suspensions() -> None:
    closes, opens = adjusted_prices(INDEX_BARS)
    assert list(closes.columns) == ["A", "B"]
    assert closes["B"].tolist() == pytest.approx([20.0, NAN, 22.0, 20.9], nan_ok=True)
    assert opens["A"].tolist() == pytest.approx([9.5, 10.5, 11.0, 12.0])
    assert opens.index.equals(closes.index)
