"""A-share price limits by board, ST status and date; limit prices rounded as the exchanges do; costs."""

from __future__ import annotations

from datetime import date

import pytest

from stockdesk.backtest.application import (
    DEFAULT_COSTS,
    CostModel,
    cost_model,
    is_st,
    limit_fraction,
    limit_lookup,
    limit_prices,
    with_slippage,
)
from stockdesk.shared.errors import BadRequestException

DAY = date(2024, 3, 1)


@pytest.mark.parametrize(
    ("symbol", "name", "expected"),
    [
        ("600519.SH", "贵州茅台", 0.10),
        ("000001.SZ", "平安银行", 0.10),
        ("600000.sh", None, 0.10),
        ("600136.SH", "ST明诚", 0.05),
        ("600136.SH", "*ST明诚", 0.05),
        ("600136.SH", "*st明诚", 0.05),
        ("000004.SZ", " st 国华", 0.05),
        ("688981.SH", "中芯国际", 0.20),
        ("689009.SH", "九号公司", 0.20),
        ("688086.SH", "*ST紫晶", 0.20),  # STAR: ST shares keep 20 %
        ("300750.SZ", "宁德时代", 0.20),
        ("301236.SZ", "软通动力", 0.20),
        ("300313.SZ", "*ST天山", 0.20),  # ChiNext after the reform: ST shares keep 20 %
        ("430047.BJ", "诺思兰德", 0.30),
        ("920819.BJ", "ST某某", 0.30),
        ("AAPL", "Apple Inc.", None),
        ("0700.HK", "腾讯控股", None),
        ("ST.US", "ST something", None),
    ],
)
def test_limit_fraction_by_board_and_name(symbol: str, name: str | None, expected: float | None) -> None:
    assert limit_fraction(symbol, name, DAY) == expected


def test_chinext_limit_changes_with_the_registration_reform() -> None:
    assert limit_fraction("300750.SZ", "宁德时代", date(2020, 8, 21)) == 0.10
    assert limit_fraction("300750.SZ", "宁德时代", date(2020, 8, 24)) == 0.20
    assert limit_fraction("300313.SZ", "*ST天山", date(2020, 8, 21)) == 0.05
    assert limit_fraction("300313.SZ", "*ST天山", "2020-08-24") == 0.20


def test_main_board_st_limit_joins_the_main_board_from_2026_07_06() -> None:
    assert limit_fraction("600136.SH", "ST明诚", date(2026, 7, 3)) == 0.05
    assert limit_fraction("600136.SH", "ST明诚", date(2026, 7, 6)) == 0.10


def test_st_is_a_prefix_not_a_substring() -> None:
    assert is_st("*ST康美") and is_st("ST康美") and is_st("st康美")
    assert not is_st("康美ST") and not is_st("") and not is_st(None) and not is_st("S*康美")


def test_limit_lookup_binds_today_names() -> None:
    lookup = limit_lookup({"600136.SH": "ST明诚", "600519.SH": "贵州茅台"})
    assert lookup("600136.SH", DAY) == 0.05
    assert lookup("600519.SH", DAY) == 0.10
    assert lookup("601398.SH", DAY) == 0.10  # no name known: not ST
    assert lookup("AAPL", DAY) is None


@pytest.mark.parametrize(
    ("pre_close", "fraction", "up", "down"),
    [
        (10.05, 0.10, 11.06, 9.05),  # 11.055 and 9.045 round half up
        (10.00, 0.10, 11.00, 9.00),
        (1.65, 0.10, 1.82, 1.49),  # 1.485: 1.4849999999999999 in floats, still 1.49
        (1.90, 0.05, 2.00, 1.81),  # 1.995 -> 2.00; 1.805 -> 1.81
        (1.15, 0.30, 1.50, 0.81),  # 1.495 -> 1.50; 0.805 -> 0.81
        (33.33, 0.20, 40.00, 26.66),  # 39.996 -> 40.00; 26.664 -> 26.66
    ],
)
def test_limit_prices_round_half_up_to_the_fen(
    pre_close: float, fraction: float, up: float, down: float
) -> None:
    assert limit_prices(pre_close, fraction) == (up, down)


def test_with_slippage_adds_to_both_sides_and_keeps_the_table() -> None:
    cn = cost_model("CN")
    slipped = with_slippage(cn, 0.001)
    assert (slipped.buy, slipped.sell) == pytest.approx((0.0013, 0.0018))
    assert with_slippage(DEFAULT_COSTS["US"], 0.0) == CostModel(buy=0.0005, sell=0.0005)
    assert DEFAULT_COSTS["CN"] == CostModel(buy=0.0003, sell=0.0008)  # not modified in place
    # US: no stamp duty, so buy and sell are the same; CN sells also pay the 0.05 % stamp duty
    assert DEFAULT_COSTS["US"].buy == DEFAULT_COSTS["US"].sell
    assert DEFAULT_COSTS["CN"].sell - DEFAULT_COSTS["CN"].buy == pytest.approx(0.0005)
    with pytest.raises(BadRequestException, match="slippage"):
        with_slippage(cn, -0.001)
    with pytest.raises(BadRequestException, match="slippage"):
        with_slippage(cn, 0.0495)
