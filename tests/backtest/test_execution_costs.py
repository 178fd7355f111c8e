"""Dated cost frames: the A-share schedule (commission, stamp duty on sells by trade date), other
markets' flat models, overrides, slippage and zero costs."""

from __future__ import annotations

import pandas as pd
import pytest

from stockdesk.backtest.application import CostModel, cost_frames, stamp_duty, zero_costs
from stockdesk.shared.errors import BadRequestException
from tests.backtest.execution_support import frame, panel

DAYS = pd.to_datetime(["2023-08-24", "2023-08-25", "2023-08-28"])
MARKETS = {"600000.SH": "CN", "AAPL": "US", "0700.HK": "HK"}


def test_stamp_duty_is_halved_from_2023_08_28() -> None:
    assert stamp_duty(DAYS).tolist() == [0.001, 0.001, 0.0005]


def test_the_cn_schedule_charges_stamp_duty_on_sells_only_by_trade_date() -> None:
    buy, sell = cost_frames((DAYS, MARKETS), slippage=0.001)
    # CN buy: 0.0003 commission + 0.001 slippage
    assert buy["600000.SH"].tolist() == pytest.approx([0.0013] * 3)
    # CN sell: 0.0003 + 0.1 % duty + 0.001 = 0.0023 on 08-24 and 08-25; 0.0003 + 0.05 % + 0.001 = 0.0018
    assert sell["600000.SH"].tolist() == pytest.approx([0.0023, 0.0023, 0.0018])
    # US 0.0005 and HK 0.0013 each way, flat, plus the slippage
    assert buy["AAPL"].tolist() == sell["AAPL"].tolist() == pytest.approx([0.0015] * 3)
    assert sell["0700.HK"].tolist() == pytest.approx([0.0023] * 3)
    assert list(buy.index) == list(DAYS) and list(buy.columns) == list(MARKETS)


def test_an_override_replaces_the_schedule_with_flat_rates() -> None:
    overrides = {"cn": CostModel(buy=0.001, sell=0.002)}
    buy, sell = cost_frames((DAYS, MARKETS), overrides)
    assert buy["600000.SH"].tolist() == [0.001] * 3
    assert sell["600000.SH"].tolist() == [0.002] * 3  # no stamp-duty step
    assert sell["AAPL"].tolist() == [0.0005] * 3  # markets it does not name keep their models


def test_a_panel_gives_its_dates_and_markets_and_zero_costs_match_its_shape() -> None:
    market = panel(frame(A=[10.0, 11.0], B=[5.0, 5.0]), markets={"B": "US"})
    buy, sell = cost_frames(market)
    assert buy.index.equals(market.close.index) and list(buy.columns) == ["A", "B"]
    assert sell.loc[:, "A"].tolist() == pytest.approx([0.0008, 0.0008])  # 2024: commission + 0.05 %
    free_buy, free_sell = zero_costs(market)
    assert free_buy.shape == free_sell.shape == buy.shape
    assert (free_buy.to_numpy() == 0).all() and (free_sell.to_numpy() == 0).all()


def test_slippage_must_be_a_small_fraction() -> None:
    with pytest.raises(BadRequestException, match="slippage"):
        cost_frames((DAYS, MARKETS), slippage=-0.001)
    with pytest.raises(BadRequestException, match="slippage"):
        cost_frames((DAYS, MARKETS), slippage=0.2)
