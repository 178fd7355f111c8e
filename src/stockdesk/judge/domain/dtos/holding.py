"""A held position as the judge is told it, and the holder's plan code derives from the verdict.

The judge imports no portfolio or backtest type: the coordinator hands the position over as this
`Holding` (valued at the close known on the as-of date, with the market's lot size, T+1 and cost
rates from the one execution module). The verdict's BUY/HOLD/SELL is never changed by it; the
`HolderPlan` is said beside it (judge/application/services/holder_plan.py).
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

HolderAction = Literal["ADD", "HOLD", "TRIM", "EXIT"]


class Holding(BaseModel):
    """What the user holds of the analysed symbol on `as_of` (every account's positions combined)."""

    symbol: str
    market: str = Field(description="CN, HK, TW or US: which lot size, T+1 and costs apply")
    as_of: date
    account: str = Field(description="the account, or '*' when several hold the symbol")
    quantity: float = Field(gt=0, description="shares held")
    cost_price: float = Field(ge=0, description="average cost a share, in the listing currency")
    cost_basis: float = Field(ge=0, description="quantity × cost price")
    close: float = Field(gt=0, description="the close known on as_of (the last bar on or before it)")
    close_date: date | None = None
    market_value: float = Field(ge=0, description="quantity × close")
    unrealised_pnl: float = Field(description="market value − cost basis")
    unrealised_pnl_pct: float | None = Field(default=None, description="percent of the cost basis")
    opened_at: date | None = Field(default=None, description="the latest opening date known (None: unknown)")
    days_held: int | None = Field(default=None, description="calendar days from opened_at to as_of")
    lot_size: int = Field(ge=1, description="shares per board lot (1: whole shares)")
    t_plus_one: bool = Field(description="T+1 market: shares bought today sell tomorrow at the earliest")
    locked_shares: float = Field(ge=0, description="shares that cannot be sold today (T+1)")
    sellable_shares: float = Field(ge=0, description="quantity − locked shares")
    book_value: float = Field(ge=0, description="market value of every holding on as_of")
    book_weight: float = Field(ge=0, le=1, description="market value / book value")
    buy_cost_rate: float = Field(ge=0, description="one-way buy cost, a fraction of the traded value")
    sell_cost_rate: float = Field(ge=0, description="one-way sell cost, a fraction of the traded value")


class HolderPlan(BaseModel):
    """The verdict expressed for a holder: what to do with the position today, in shares and lots."""

    action: HolderAction
    base_action: str = Field(description="the verdict's BUY | HOLD | SELL it was derived from")
    rule: str = Field(description="which branch of the rules decided (holder_plan.py's docstring)")
    shares: float = Field(ge=0, description="shares to add (ADD), sell (TRIM, EXIT) today; 0 for HOLD")
    lots: int = Field(ge=0, description="whole lots among `shares`")
    odd_shares: float = Field(ge=0, description="shares beyond whole lots (an odd lot sold whole)")
    lot_size: int = Field(ge=1)
    close: float
    stop: float | None = Field(default=None, description="the holder's stop (None: no price history)")
    stop_distance_pct: float | None = Field(
        default=None, description="(close − stop) / close in percent; ≤ 0: the stop is crossed"
    )
    stop_crossed: bool = False
    target: float | None = Field(default=None, description="the upside level for what stays held")
    target_distance_pct: float | None = None
    break_even: float = Field(description="the close at which selling everything returns the cost basis")
    locked_shares: float = Field(ge=0)
    sellable_shares: float = Field(ge=0)
    target_weight: float | None = Field(
        default=None, description="ADD: the plan's position percent of the holdings book aimed at"
    )
    book_weight: float
    trade_value: float = Field(ge=0, description="shares × close")
    estimated_cost: float = Field(ge=0, description="trade value × the market's one-way cost rate")
    cost_rate: float = Field(ge=0)
    reason: str = Field(description="why, in English (i18n holds every language)")
    i18n: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="language -> {'reason': the same in that language}"
    )
