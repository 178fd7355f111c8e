"""The trades that take the current book to the target weights, sized at the as-of close.

Lots, T+1 and costs come from the one execution module (`stockdesk.backtest`): `ExecutionRules`
says how many shares a lot holds and which markets have T+1, `cost_frames` the one-way rates of
that day (the A-share stamp duty on sales by date). A target is whole lots (rounded down, so the
book never buys more than its weight); a buy is the whole lots between what is held and the target;
a sale to zero sells every share (odd lots included), any other sale whole lots. Shares bought on
the as-of day itself cannot be sold that day in a T+1 market: a sale is limited to the rest (a sale
with nothing left to sell is listed with 0 shares and the reason).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date

from stockdesk.backtest.application import ExecutionRules, cost_frames
from stockdesk.portfolio.application.allocation import reason
from stockdesk.portfolio.domain.view import NameAllocation, Trade

SHARE_TOLERANCE = 1e-9


def _whole_lots(shares: float, lot: int) -> float:
    if lot <= 0:
        return round(shares, 6)
    return float(math.floor(shares / lot + SHARE_TOLERANCE) * lot)


def rebalance_trades(
    allocations: Sequence[NameAllocation],
    book_value: float,
    closes: Mapping[str, float],
    held_shares: Mapping[str, float],
    locked_shares: Mapping[str, float],
    markets: Mapping[str, str],
    as_of: date,
) -> list[Trade]:
    """One trade per name whose target differs from what is held by at least one tradable unit."""
    rules = ExecutionRules()
    priced = {a.symbol: markets.get(a.symbol, "CN") for a in allocations if a.symbol in closes}
    buy_rates, sell_rates = cost_frames(([as_of], priced)) if priced else (None, None)
    out = []
    for a in allocations:
        price = closes.get(a.symbol)
        if price is None or price <= 0 or buy_rates is None or sell_rates is None:
            continue
        market = priced[a.symbol]
        lot = rules.lot_size(market)
        held = held_shares.get(a.symbol, 0.0)
        target = _whole_lots(a.target_weight * book_value / price, lot)
        locked = locked_shares.get(a.symbol, 0.0) if rules.t_plus_one(market) else 0.0
        if target > held + SHARE_TOLERANCE:
            side, shares = "BUY", _whole_lots(target - held, lot)
        elif target < held - SHARE_TOLERANCE:
            side = "SELL"
            wanted = held if target <= 0 else _whole_lots(held - target, lot)
            sellable = max(held - locked, 0.0)
            if wanted > sellable + SHARE_TOLERANCE:
                wanted = sellable if target <= 0 else _whole_lots(sellable, lot)
            shares = wanted
        else:
            continue
        if shares <= SHARE_TOLERANCE and not (side == "SELL" and locked > 0):
            continue  # a sale all of whose shares are locked stays listed, 0 shares, saying why
        rate = float((buy_rates if side == "BUY" else sell_rates).iloc[0][a.symbol])
        value = shares * price
        note = None
        if locked and side == "SELL":
            note = reason("locked", "trade", shares=f"{locked:,.0f}", day=as_of.isoformat())
        out.append(
            Trade(
                symbol=a.symbol, side=side, shares=shares, price=price, value=round(value, 2),
                costs=round(value * rate, 2), lot=lot, note=note,
                locked_shares=locked if side == "SELL" else 0.0,
            )
        )  # fmt: skip
    return out
