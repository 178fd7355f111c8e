"""The verdict expressed for a holder: ADD / HOLD / TRIM / EXIT, a pure function of the verdict's
action, its plan's levels and the held position. The verdict itself (BUY/HOLD/SELL, confidence,
probability, what the ledger records and `evaluate` scores) is never changed by it.

Why a second action: an investor who already holds the name does not "buy" or "sell" it, but adds
to it, keeps it, trims it or leaves it, in lots, with shares bought today locked under T+1.

Rules (E = today's close of the holding, d = the plan's downside distance: E minus the "watch
below" level of the same prices' HOLD plan, trade_plan.py; lot = the market's board lot, 1 where
the execution module lists none: whole shares):
- The holder's stop = max(cost price, E) − d, rounded to 0.01: in profit it trails the close by the
  plan's distance; under water it limits the loss from the cost price to that distance. It is
  crossed when E ≤ stop (only a position that has lost at least d from its cost crosses it today).
  Its distance is (E − stop) / E in percent. Without prices (no plan) there is no stop.
- Locked shares (T+1, CN only): a position opened on the as-of date cannot be sold today. The
  portfolio keeps only the latest opening date of a symbol, so all its shares count as locked then
  (erring towards locked). Sellable = quantity − locked.
- BUY → ADD the shares that bring the position to the plan's position percent of the holdings book
  (the book = every holding's market value on the date; cash is not known to the desk): shares =
  (target % × book − market value) / E, rounded down to whole lots. No whole lot to add → HOLD,
  worded: already at or above the target weight, or the gap is less than one lot.
- HOLD → HOLD; → EXIT when the holder's stop is crossed.
- SELL → EXIT when the verdict is calibrated with P(up) ≤ 0.40 at its own horizon, or when the
  holder's stop is crossed. Otherwise TRIM half of the sellable shares, rounded down to whole lots.
  A-shares sell whole lots, and an odd lot only as the whole remainder: when half is less than one
  lot but the sellable shares hold an odd lot, the trim is that odd lot, sold whole; with no odd lot
  (exactly one lot, or nothing sellable under T+1) → HOLD, worded.
- EXIT sells every sellable share (an odd lot with them, whole); shares locked under T+1 are
  sold from the next trading day, and the plan says so.
- Target: the BUY plan's take-profit after an ADD or a BUY turned HOLD; otherwise the HOLD plan's
  "watch above" level; none after an EXIT.
- Break-even: cost price / (1 − sell cost rate): the close at which selling the whole position
  returns its cost basis after the sell's costs.
- Estimated costs: shares × E × the market's one-way rate on the as-of date (buy for ADD, sell for
  TRIM and EXIT), from the execution module's cost model (handed over in the Holding).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

from stockdesk.judge.domain.dtos.holding import HolderAction, HolderPlan, Holding
from stockdesk.judge.domain.model.enums import ActionDirection
from stockdesk.shared.finance import round_half_up
from stockdesk.shared.wording import LANGUAGES, say

EXIT_P_UP = 0.40
"""A calibrated SELL whose P(up) is at most this exits rather than trims."""
LOT_EPSILON = 1e-9


@dataclass(frozen=True)
class HolderInputs:
    """What the rules read from the verdict besides the holding.

    `downside`: d, the plan's downside distance in price (None: no prices, no plan); `buy_target`:
    the BUY plan's take-profit (None unless the verdict is a BUY); `watch_above`: the HOLD plan's
    upside level; `target_percent`: the BUY plan's position percent; `p_up`: the verdict's
    calibrated P(up) at its horizon (None when uncalibrated)."""

    downside: float | None = None
    buy_target: float | None = None
    watch_above: float | None = None
    target_percent: float = 0.0
    p_up: float | None = None


def locked_shares(quantity: float, opened_at: date | None, as_of: date, t_plus_one: bool) -> float:
    """Shares that cannot be sold on `as_of` under T+1 (see the module docstring)."""
    return quantity if t_plus_one and opened_at is not None and opened_at == as_of else 0.0


def whole_lots(shares: float, lot: int) -> float:
    """`shares` rounded down to whole lots (never below 0)."""
    if shares <= 0:
        return 0.0
    return math.floor(shares / lot + LOT_EPSILON) * lot


def odd_lot(shares: float, lot: int) -> float:
    """The shares beyond whole lots (0 when none, float noise aside)."""
    rest = shares - whole_lots(shares, lot)
    return rest if rest > LOT_EPSILON * lot else 0.0


def _stop(holding: Holding, downside: float | None) -> tuple[float | None, float | None, bool]:
    if downside is None or not math.isfinite(downside):
        return None, None, False
    stop = round_half_up(max(holding.cost_price, holding.close) - max(downside, 0.0), 2)
    distance = round_half_up((holding.close - stop) / holding.close * 100, 2)
    return stop, distance, holding.close <= stop


@dataclass(frozen=True)
class _Decision:
    action: HolderAction
    rule: str
    shares: float = 0.0


def _add(holding: Holding, inputs: HolderInputs) -> _Decision:
    gap = inputs.target_percent * holding.book_value - holding.market_value
    if gap <= 0:
        return _Decision("HOLD", "hold_at_target")
    shares = whole_lots(gap / holding.close, holding.lot_size)
    return _Decision("ADD", "add", shares) if shares > 0 else _Decision("HOLD", "hold_under_lot")


def _exit(holding: Holding, rule: str) -> _Decision:
    return _Decision("EXIT", rule, holding.sellable_shares)


def _trim(holding: Holding) -> _Decision:
    sellable, lot = holding.sellable_shares, holding.lot_size
    if sellable <= 0:
        return _Decision("HOLD", "hold_locked")
    half = whole_lots(sellable / 2, lot)
    if half > 0:
        return _Decision("TRIM", "trim", half)
    odd = odd_lot(sellable, lot)
    if 0 < odd < sellable:
        return _Decision("TRIM", "trim_odd", odd)
    return _Decision("HOLD", "hold_trim_small")


def _decide(base: ActionDirection, holding: Holding, inputs: HolderInputs, crossed: bool) -> _Decision:
    if base is ActionDirection.BUY:
        return _add(holding, inputs)
    if base is ActionDirection.HOLD:
        return _exit(holding, "exit_stop") if crossed else _Decision("HOLD", "hold")
    if inputs.p_up is not None and inputs.p_up <= EXIT_P_UP:
        return _exit(holding, "exit_probability")
    if crossed:
        return _exit(holding, "exit_stop")
    return _trim(holding)


def _money(value: float) -> str:
    return f"{value:,.2f}"


def _shares(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4f}".rstrip("0").rstrip(".")


def _reason(
    decision: _Decision, holding: Holding, inputs: HolderInputs, stop: float | None
) -> dict[str, str]:
    values = {
        "shares": _shares(decision.shares),
        "lots": int(whole_lots(decision.shares, holding.lot_size) // holding.lot_size),
        "lot": holding.lot_size,
        "odd": _shares(odd_lot(decision.shares, holding.lot_size)),
        "sellable": _shares(holding.sellable_shares),
        "locked": _shares(holding.locked_shares),
        "weight": f"{holding.book_weight:.1%}",
        "target": f"{inputs.target_percent:.1%}",
        "p_up": f"{inputs.p_up:.2f}" if inputs.p_up is not None else "",
        "limit": f"{EXIT_P_UP:.2f}",
        "stop": _money(stop) if stop is not None else "",
        "close": _money(holding.close),
    }
    worded = {lang: say(f"holder.rule.{decision.rule}", lang, **values) for lang in LANGUAGES}
    if holding.locked_shares > 0 and (decision.action in ("TRIM", "EXIT") or decision.rule == "hold_locked"):
        for lang in LANGUAGES:
            worded[lang] += say("holder.locked_note", lang, **values)
    return worded


def _target(decision: _Decision, base: ActionDirection, inputs: HolderInputs) -> float | None:
    if decision.action == "EXIT":
        return None
    if base is ActionDirection.BUY and inputs.buy_target is not None:
        return inputs.buy_target
    return inputs.watch_above


def holder_plan(base: ActionDirection, holding: Holding, inputs: HolderInputs) -> HolderPlan:
    """The holder's action and plan for a verdict of `base` (see the module docstring)."""
    stop, stop_distance, crossed = _stop(holding, inputs.downside)
    decision = _decide(base, holding, inputs, crossed)
    lot = holding.lot_size
    rate = holding.buy_cost_rate if decision.action == "ADD" else holding.sell_cost_rate
    value = decision.shares * holding.close
    target = _target(decision, base, inputs)
    reason = _reason(decision, holding, inputs, stop)
    return HolderPlan(
        action=decision.action,
        base_action=base.value,
        rule=decision.rule,
        shares=decision.shares,
        lots=int(whole_lots(decision.shares, lot) // lot),
        odd_shares=odd_lot(decision.shares, lot),
        lot_size=lot,
        close=holding.close,
        stop=stop,
        stop_distance_pct=stop_distance,
        stop_crossed=crossed,
        target=target,
        target_distance_pct=(
            round_half_up((target - holding.close) / holding.close * 100, 2) if target is not None else None
        ),
        break_even=round_half_up(holding.cost_price / (1 - holding.sell_cost_rate), 4),
        locked_shares=holding.locked_shares,
        sellable_shares=holding.sellable_shares,
        target_weight=inputs.target_percent if base is ActionDirection.BUY else None,
        book_weight=holding.book_weight,
        trade_value=round_half_up(value, 2),
        estimated_cost=round_half_up(value * rate, 2) if decision.action != "HOLD" else 0.0,
        cost_rate=rate if decision.action != "HOLD" else 0.0,
        reason=reason["en"],
        i18n={lang: {"reason": text} for lang, text in reason.items()},
    )
