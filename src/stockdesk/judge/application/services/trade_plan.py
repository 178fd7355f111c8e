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
from stockdesk.shared.wording import LANGUAGES, say

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


Said = dict[str, str]  # language -> a rule's words (the shared catalogue's `verdict.rule.*`)


def _said(key: str, **values: str | Said) -> Said:
    """A rule's words in every language; a value that is itself worded is put in its own language."""
    return {
        lang: say(key, lang, **{k: v[lang] if isinstance(v, dict) else v for k, v in values.items()})
        for lang in LANGUAGES
    }


def _distance(close: float, atr: float, swing: float | None) -> tuple[float, Said]:
    if swing is None:
        return DEFAULT_STOP_ATR * atr, _said("verdict.rule.no_swing", n=f"{DEFAULT_STOP_ATR:g}")
    raw = abs(close - swing) + SWING_BUFFER_ATR * atr
    clamped = min(max(raw, MIN_STOP_ATR * atr), MAX_STOP_ATR * atr)
    note = _said("verdict.rule.swing", swing=f"{swing:g}", buffer=f"{SWING_BUFFER_ATR:g}")
    if clamped != raw:
        note = _said("verdict.rule.clamped", note=note, n=f"{clamped / atr:.2f}")
    return clamped, note


def _atr(prices: PlanInputs) -> tuple[float, Said]:
    if prices.atr is not None and math.isfinite(prices.atr) and prices.atr > 0:
        return prices.atr, _said("verdict.rule.atr")
    assumed = _said("verdict.rule.atr_assumed", pct=f"{FALLBACK_ATR_PCT:g}")
    return prices.close * FALLBACK_ATR_PCT / 100, assumed


def _sizing(close: float, atr: float, confidence: float, variant: PlanVariant) -> tuple[float, Said]:
    """A BUY's size (volatility targeting, see the module docstring) and how it was set."""
    annual_vol = atr / close * math.sqrt(TRADING_DAYS)
    raw = TARGET_VOLATILITY / annual_vol if annual_vol > 0 else MAX_POSITION
    factor = CONSERVATIVE_SIZE if variant == "conservative" else 1.0
    size = min(MAX_POSITION, confidence, raw * confidence * factor)
    rule = _said(
        "verdict.rule.sizing",
        target=f"{TARGET_VOLATILITY:.0%}",
        vol=f"{annual_vol:.1%}",
        raw=f"{raw:.2f}",
        confidence=f"{confidence:.2f}",
    )
    if factor != 1.0:
        more = _said("verdict.rule.sizing_conservative", factor=f"{factor:g}")
        rule = {lang: rule[lang] + more[lang] for lang in LANGUAGES}
    rule = _said("verdict.rule.sizing_cap", rule=rule, cap=f"{MAX_POSITION:.0%}")
    return math.floor(size * 1000 + 1e-9) / 1000, rule  # rounded down: never above a cap


def _levels(
    action: ActionDirection,
    close: float,
    variant: PlanVariant,
    sides: tuple[float, Said, float, Said],
    swings: tuple[float | None, float | None],
) -> tuple[float, Said, float, Said]:
    """(stop, its rule, target, its rule) of the action, from the two sides' distances and swings."""
    d_down, down_note, d_up, up_note = sides
    swing_low, swing_high = swings
    r = TARGET_R[variant]
    if action is ActionDirection.BUY:
        far = close + MAX_TARGET_R * d_down
        if variant == "standard" and swing_high is not None and swing_high - close >= r * d_down:
            target, target_rule = (
                min(swing_high, far),
                _said("verdict.rule.BUY.target_swing", swing=f"{swing_high:g}", r=f"{r:g}"),
            )
        else:
            target, target_rule = close + r * d_down, _said("verdict.rule.BUY.target", r=f"{r:g}")
        return close - d_down, _said("verdict.rule.BUY.stop", note=down_note), target, target_rule
    if action is ActionDirection.SELL:
        reach = r * d_up
        if variant == "standard" and swing_low is not None:
            reach = max(reach, close - swing_low)
        reach = min(reach, MAX_TARGET_R * d_up, close / 2)
        target_rule = _said("verdict.rule.SELL.target", n=f"{reach / d_up:.2f}")
        return close + d_up, _said("verdict.rule.SELL.stop", note=up_note), close - reach, target_rule
    stop_rule, target_rule = (
        _said("verdict.rule.HOLD.stop", note=down_note),
        _said("verdict.rule.HOLD.target", note=up_note),
    )
    return close - d_down, stop_rule, close + d_up, target_rule


def compute_trade_plan(
    action: ActionDirection, prices: PlanInputs, confidence: float, variant: PlanVariant = "standard"
) -> TradePlan:
    close = prices.close
    atr, atr_source = _atr(prices)
    swing_low = _nearest(prices.support_levels, prices.low_20d, below=close, above=None)
    swing_high = _nearest(prices.resistance_levels, prices.high_20d, below=None, above=close)
    d_down, down_note = _distance(close, atr, swing_low)
    d_up, up_note = _distance(close, atr, swing_high)
    stop, stop_rule, target, target_rule = _levels(
        action, close, variant, (d_down, down_note, d_up, up_note), (swing_low, swing_high)
    )
    if action is ActionDirection.BUY:
        position, sizing = _sizing(close, atr, confidence, variant)
    else:
        position, sizing = 0.0, _said(f"verdict.rule.{action.value}.sizing")
    stop, target = _price(stop), _price(target)
    risk, reward = abs(close - stop), abs(target - close)
    rules = {
        "stop_rule": stop_rule,
        "target_rule": target_rule,
        "sizing_rule": sizing,
        "atr_source": atr_source,
    }
    return TradePlan(
        action=action,
        variant=variant,
        reference_date=prices.trade_date,
        entry_price=_price(close),
        atr=_price(atr),
        atr_source=atr_source["en"],
        swing_low=_price(swing_low) if swing_low is not None else None,
        swing_high=_price(swing_high) if swing_high is not None else None,
        stop_loss_price=stop,
        take_profit_price=target,
        stop_distance_pct=round_half_up(risk / close * 100, 2),
        target_distance_pct=round_half_up(reward / close * 100, 2),
        risk_reward=round_half_up(reward / risk, 2) if risk > 0 else 0.0,
        position_percent=position,
        stop_rule=stop_rule["en"],
        target_rule=target_rule["en"],
        sizing_rule=sizing["en"],
        i18n={lang: {field: said[lang] for field, said in rules.items()} for lang in LANGUAGES},
    )


def plan_options(action: ActionDirection, prices: PlanInputs, confidence: float) -> list[PlanOption]:
    """Both plans the judge may choose between, for one action."""
    return [
        PlanOption(variant=v, plan=compute_trade_plan(action, prices, confidence, v))
        for v in ("standard", "conservative")
    ]
