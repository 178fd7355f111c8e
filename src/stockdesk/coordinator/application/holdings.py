"""Whether the analysed symbol is held on the as-of date, as the judge is told it.

The portfolio context values the position point in time (the close known on the date; a position
opened after it is not held); the one execution module (backtest) gives the market's board lot,
whether T+1 applies, and the one-way cost rates on that date. The holding's weight is its market
value over every holding's market value on the same date.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date

from stockdesk.backtest.application import ExecutionRules, cost_frames
from stockdesk.data_engineering.application import market_of
from stockdesk.judge.application import Holding, locked_shares
from stockdesk.portfolio.application import HeldPosition, HoldingsService

logger = logging.getLogger(__name__)

HoldingSource = Callable[[str, date], Holding | None]
"""(symbol, as_of) -> the user's holding of `symbol` on `as_of`, or None when it is not held."""


def holding_of(position: HeldPosition, book: list[HeldPosition], rules: ExecutionRules) -> Holding | None:
    """The judge's Holding of a valued position; None when it has no close to be valued at."""
    if position.close is None or position.market_value is None or position.unrealised_pnl is None:
        return None
    market = market_of(position.symbol)
    book_value = sum(p.market_value for p in book if p.market_value is not None)
    book_value = max(book_value, position.market_value)  # the position is part of its book
    t_plus_one = rules.t_plus_one(market)
    locked = locked_shares(position.quantity, position.opened_at, position.as_of, t_plus_one)
    buy, sell = cost_frames(([position.as_of], {position.symbol: market}))
    return Holding(
        symbol=position.symbol,
        market=market,
        as_of=position.as_of,
        account=position.account,
        quantity=position.quantity,
        cost_price=position.cost_price,
        cost_basis=position.cost_basis,
        close=position.close,
        close_date=position.close_date,
        market_value=position.market_value,
        unrealised_pnl=position.unrealised_pnl,
        unrealised_pnl_pct=position.unrealised_pnl_pct,
        opened_at=position.opened_at,
        days_held=position.days_held,
        lot_size=rules.lot_size(market) or 1,  # a market without board lots trades whole shares
        t_plus_one=t_plus_one,
        locked_shares=locked,
        sellable_shares=position.quantity - locked,
        book_value=book_value,
        book_weight=min(1.0, position.market_value / book_value) if book_value > 0 else 0.0,
        buy_cost_rate=float(buy.iloc[0, 0]),
        sell_cost_rate=float(sell.iloc[0, 0]),
    )


class HoldingReader:
    """The coordinator's HoldingSource over the portfolio's HoldingsService (built on first use)."""

    def __init__(self, holdings: Callable[[], HoldingsService], rules: ExecutionRules | None = None):
        self._holdings = holdings
        self._rules = rules or ExecutionRules()

    def __call__(self, symbol: str, as_of: date) -> Holding | None:
        service = self._holdings()
        position = service.position(symbol, as_of)
        if position is None:
            return None
        holding = holding_of(position, service.positions(as_of), self._rules)
        if holding is None:
            logger.warning("%s is held but has no close by %s: analysed as not held", symbol, as_of)
        return holding
