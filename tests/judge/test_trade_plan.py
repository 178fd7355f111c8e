"""The trade plan on hand-computed cases: BUY, SELL, HOLD, no ATR, gaps past the swing levels."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stockdesk.judge.application.services.trade_plan import compute_trade_plan
from stockdesk.judge.domain.dtos.trade_plan import PlanInputs
from stockdesk.judge.domain.model.enums import ActionDirection as A

PRICES = PlanInputs(
    trade_date="2026-05-29", close=100.0, atr=2.0, support_levels=[96.0, 90.0], resistance_levels=[110.0]
)


def test_buy_stop_under_the_swing_low_target_at_the_swing_high() -> None:
    plan = compute_trade_plan(A.BUY, PRICES, confidence=0.5)
    # stop: swing low 96 - 0.25 x ATR 2 = 95.5 (4.5 away, inside [2, 6]);
    # target: swing high 110 is >= 2 x 4.5 away -> 110; R/R = 10 / 4.5
    assert (plan.entry_price, plan.stop_loss_price, plan.take_profit_price) == (100.0, 95.5, 110.0)
    assert plan.risk_reward == 2.22 and plan.stop_distance_pct == 4.5 and plan.target_distance_pct == 10.0
    # size: 15% / (2% x sqrt(252)) = 0.4725 x confidence 0.5 = 0.236
    assert plan.position_percent == pytest.approx(0.15 / (0.02 * math.sqrt(252)) * 0.5, abs=1e-3)
    assert plan.reference_date == "2026-05-29" and plan.atr_source == "ATR(14)"


def test_conservative_buy_has_a_closer_target_and_half_the_size() -> None:
    standard = compute_trade_plan(A.BUY, PRICES, confidence=0.5)
    conservative = compute_trade_plan(A.BUY, PRICES, confidence=0.5, variant="conservative")
    assert conservative.take_profit_price == 100 + 1.5 * 4.5 == 106.75
    assert conservative.position_percent == pytest.approx(standard.position_percent / 2, abs=1e-3)


def test_buy_target_without_a_far_enough_swing_high_is_two_r() -> None:
    prices = PRICES.model_copy(update={"resistance_levels": [103.0], "high_20d": None})
    plan = compute_trade_plan(A.BUY, prices, confidence=0.5)
    assert plan.take_profit_price == 109.0 and plan.risk_reward == 2.0  # 100 + 2 x 4.5


def test_sell_is_an_exit_with_the_level_where_the_bearish_view_is_wrong() -> None:
    plan = compute_trade_plan(A.SELL, PRICES, confidence=0.7)
    # invalidation: swing high 110 + 0.5 = 10.5 away, clamped to 3 ATR = 6 -> 106
    # target: max(2 x 6, 100 - 96 = 4) = 12, within 4 x 6 -> 88
    assert (plan.stop_loss_price, plan.take_profit_price) == (106.0, 88.0)
    assert plan.position_percent == 0.0 and plan.risk_reward == 2.0


def test_hold_has_no_position_and_two_levels_to_watch() -> None:
    plan = compute_trade_plan(A.HOLD, PRICES, confidence=0.9)
    assert (plan.stop_loss_price, plan.take_profit_price, plan.position_percent) == (95.5, 106.0, 0.0)
    assert "watch" in plan.stop_rule and "watch" in plan.target_rule


def test_without_atr_the_documented_fallback_is_used_and_named() -> None:
    prices = PlanInputs(close=50.0, atr=None)
    plan = compute_trade_plan(A.BUY, prices, confidence=0.5)
    # ATR = 2.5% of 50 = 1.25; no swing -> stop 2 ATR = 2.5 below; target 2R = 5 above
    assert plan.atr == 1.25 and "assumed 2.5%" in plan.atr_source
    assert (plan.stop_loss_price, plan.take_profit_price) == (47.5, 55.0)


def test_a_gap_below_every_swing_low_falls_back_to_atr() -> None:
    """After a gap down the recent lows lie above the close: they are not supports."""
    prices = PlanInputs(close=80.0, atr=4.0, support_levels=[], low_20d=85.0, resistance_levels=[95.0])
    plan = compute_trade_plan(A.BUY, prices, confidence=0.5)
    assert plan.swing_low is None and plan.stop_loss_price == 72.0  # 80 - 2 x 4


def test_a_swing_low_right_under_the_close_keeps_a_one_atr_stop() -> None:
    prices = PlanInputs(close=100.0, atr=2.0, support_levels=[99.9])
    plan = compute_trade_plan(A.BUY, prices, confidence=0.5)
    assert plan.stop_loss_price == 98.0  # 0.6 clamped up to 1 ATR


@given(
    close=st.floats(1, 5000),
    atr_pct=st.one_of(st.none(), st.floats(0.1, 15)),
    low_pct=st.one_of(st.none(), st.floats(-40, 40)),
    high_pct=st.one_of(st.none(), st.floats(-40, 40)),
    confidence=st.floats(0, 1),
    action=st.sampled_from(list(A)),
    variant=st.sampled_from(["standard", "conservative"]),
)
def test_levels_are_always_on_the_right_side_of_the_entry(
    close: float,
    atr_pct: float | None,
    low_pct: float | None,
    high_pct: float | None,
    confidence: float,
    action: A,
    variant: str,
) -> None:
    prices = PlanInputs(
        close=close,
        atr=close * atr_pct / 100 if atr_pct else None,
        support_levels=[close * (1 + low_pct / 100)] if low_pct is not None else [],
        resistance_levels=[close * (1 + high_pct / 100)] if high_pct is not None else [],
    )
    plan = compute_trade_plan(action, prices, confidence, variant)  # type: ignore[arg-type]
    tick = 0.01
    if action is A.SELL:
        assert (
            plan.stop_loss_price >= plan.entry_price - tick
            and plan.take_profit_price <= plan.entry_price + tick
        )
        assert plan.take_profit_price > 0
    else:
        assert plan.stop_loss_price <= plan.entry_price + tick <= plan.take_profit_price + 2 * tick
    assert 0 <= plan.position_percent <= min(0.5, confidence) + 1e-9 or action is not A.BUY
    assert plan.position_percent == 0 or action is A.BUY
