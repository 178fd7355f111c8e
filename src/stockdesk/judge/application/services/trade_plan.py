"""The trade plan, a pure function of the action, the confidence and the as-of prices.

Rules (E = last close as of the date, A = ATR(14)):
- Without ATR(14) (fewer than 15 bars) A = 2.5% of E, a typical daily range, and the plan says so.
- Downside level: the nearest swing low below E (else the 20-day low, if below E), 0.25 A under it;
  its distance d_down is clamped to [1 A, 3 A]; with no such low, d_down = 2 A. The upside level
  mirrors it with swing highs (d_up). A swing on the wrong side of E (after a gap) is ignored.
- BUY: stop = E - d_down. Standard target = the upside swing level if it is at least 2 d_down
  away, else E + 2 d_down, never beyond E + 4 d_down; conservative target = E + 1.5 d_down.
- SELL (an exit at E): stop = E + d_up, the level at which the bearish view is wrong; standard
  target = E - max(2 d_up, distance to the downside swing level), at most 4 d_up, never below
  half of E; conservative target = E - 1.5 d_up. Position 0: nothing is held after the exit.
- HOLD: no entry; stop = E - d_down and target = E + d_up are the two levels to watch. Position 0.
- risk_reward = |target - E| / |stop - E|.
- BUY size (volatility targeting): annual volatility = A / E x sqrt(252); size = 15% / that
  volatility x confidence, halved for the conservative plan, never above the confidence itself
  nor 50% of the book.
Prices are rounded to 0.01 (the A-share tick), percentages to 0.01 points.
"""

from __future__ import annotations

import math

from stockdesk.judge.domain.dtos.trade_plan import PlanInputs, PlanOption, PlanVariant, TradePlan
from stockdesk.judge.domain.model.enums import ActionDirection
from stockdesk.shared.finance import round_half_up

FALLBACK_ATR_PCT = 2.5
SWING_BUFFER_ATR = 0.25
MIN_STOP_ATR, DEFAULT_STOP_ATR, MAX_STOP_ATR = 1.0, 2.0, 3.0
TARGET_R = {"standard": 2.0, "conservative": 1.5}
MAX_TARGET_R = 4.0
TARGET_VOLATILITY = 0.15
MAX_POSITION = 0.5
CONSERVATIVE_SIZE = 0.5
TRADING_DAYS = 252


def _price(value: float) -> float:
    return round_half_up(value, 2)


def _nearest(
    levels: list[float], fallback: float | None, *, below: float | None, above: float | None
) -> float | None:
    """The first level on the right side of the close (levels come nearest first)."""
    candidates = [*levels, *([fallback] if fallback is not None else [])]
    for level in candidates:
        if level is None or not math.isfinite(level) or level <= 0:
            continue
        if below is not None and level < below:
            return level
        if above is not None and level > above:
            return level
    return None


def _distance(close: float, atr: float, swing: float | None) -> tuple[float, str]:
    if swing is None:
        return DEFAULT_STOP_ATR * atr, f"{DEFAULT_STOP_ATR:g} x ATR (no swing level on that side)"
    raw = abs(close - swing) + SWING_BUFFER_ATR * atr
    clamped = min(max(raw, MIN_STOP_ATR * atr), MAX_STOP_ATR * atr)
    note = f"swing {swing:g} +/- {SWING_BUFFER_ATR:g} ATR"
    if clamped != raw:
        note += f", clamped to {clamped / atr:.2f} x ATR"
    return clamped, note


def _atr(prices: PlanInputs) -> tuple[float, str]:
    if prices.atr is not None and math.isfinite(prices.atr) and prices.atr > 0:
        return prices.atr, "ATR(14)"
    return prices.close * FALLBACK_ATR_PCT / 100, f"assumed {FALLBACK_ATR_PCT:g}% of price (no ATR(14))"


def position_size(close: float, atr: float, confidence: float, variant: PlanVariant) -> tuple[float, str]:
    annual_vol = atr / close * math.sqrt(TRADING_DAYS)
    raw = TARGET_VOLATILITY / annual_vol if annual_vol > 0 else MAX_POSITION
    factor = CONSERVATIVE_SIZE if variant == "conservative" else 1.0
    size = min(MAX_POSITION, confidence, raw * confidence * factor)
    rule = (
        f"{TARGET_VOLATILITY:.0%} target vol / {annual_vol:.1%} annual vol = {raw:.2f}"
        f" x confidence {confidence:.2f}" + (f" x {factor:g} (conservative)" if factor != 1.0 else "")
        + f", cap min(confidence, {MAX_POSITION:.0%})"
    )  # fmt: skip
    return math.floor(size * 1000 + 1e-9) / 1000, rule  # rounded down: never above a cap


def compute_trade_plan(
    action: ActionDirection, prices: PlanInputs, confidence: float, variant: PlanVariant = "standard"
) -> TradePlan:
    close = prices.close
    atr, atr_source = _atr(prices)
    swing_low = _nearest(prices.support_levels, prices.low_20d, below=close, above=None)
    swing_high = _nearest(prices.resistance_levels, prices.high_20d, below=None, above=close)
    d_down, down_note = _distance(close, atr, swing_low)
    d_up, up_note = _distance(close, atr, swing_high)
    r = TARGET_R[variant]
    position, sizing = 0.0, "no position"
    if action is ActionDirection.BUY:
        stop, stop_rule = close - d_down, f"entry - {down_note}"
        far = close + MAX_TARGET_R * d_down
        if variant == "standard" and swing_high is not None and swing_high - close >= r * d_down:
            target, target_rule = min(swing_high, far), f"swing high {swing_high:g} (>= {r:g}R)"
        else:
            target, target_rule = close + r * d_down, f"entry + {r:g} x stop distance"
        position, sizing = position_size(close, atr, confidence, variant)
    elif action is ActionDirection.SELL:
        stop, stop_rule = close + d_up, f"exit + {up_note}: above it the bearish view is wrong"
        reach = r * d_up
        if variant == "standard" and swing_low is not None:
            reach = max(reach, close - swing_low)
        reach = min(reach, MAX_TARGET_R * d_up, close / 2)
        target, target_rule = close - reach, f"exit - {reach / d_up:.2f} x invalidation distance"
        sizing = "exit: no position is held"
    else:
        stop, stop_rule = close - d_down, f"watch below: {down_note}"
        target, target_rule = close + d_up, f"watch above: {up_note}"
        sizing = "hold: no new position"
    stop, target = _price(stop), _price(target)
    risk, reward = abs(close - stop), abs(target - close)
    return TradePlan(
        action=action,
        variant=variant,
        reference_date=prices.trade_date,
        entry_price=_price(close),
        atr=_price(atr),
        atr_source=atr_source,
        swing_low=_price(swing_low) if swing_low is not None else None,
        swing_high=_price(swing_high) if swing_high is not None else None,
        stop_loss_price=stop,
        take_profit_price=target,
        stop_distance_pct=round_half_up(risk / close * 100, 2),
        target_distance_pct=round_half_up(reward / close * 100, 2),
        risk_reward=round_half_up(reward / risk, 2) if risk > 0 else 0.0,
        position_percent=position,
        stop_rule=stop_rule,
        target_rule=target_rule,
        sizing_rule=sizing,
    )


def plan_options(action: ActionDirection, prices: PlanInputs, confidence: float) -> list[PlanOption]:
    """Both plans the judge may choose between, for one action."""
    return [
        PlanOption(variant=v, plan=compute_trade_plan(action, prices, confidence, v))
        for v in ("standard", "conservative")
    ]
