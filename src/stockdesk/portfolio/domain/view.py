"""The portfolio view's types: a verdict as the view reads it, each name's allocation with the worded
reasons of every cut, the risk figures of a book, a rebalancing trade, and the view as a whole.

Weights are fractions of the book's value (0.2 = 20 %); the rest of the book is cash. Money is in
the symbols' listing currency (a view mixes no markets' amounts: see the view service)."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field


class NameVerdict(BaseModel):
    """The day's rules verdict of one name, as the view reads it (the entrypoints' composition root
    fills it from the coordinator's `SymbolVerdict`, which this context may not import)."""

    symbol: str
    action: str | None = Field(description="BUY | SELL | HOLD; None: no verdict")
    confidence: float = 0.0
    horizon: int = 20
    probability_up: float | None = None
    calibrated: bool = False
    sample_size: int | None = None
    close: float | None = None
    note: str = ""


class Reason(BaseModel):
    """Why a name's weight is what it is: a catalogue key (`portfolio.reason.<code>`), its values,
    and the sentence in each language."""

    code: str
    values: dict[str, float | str] = Field(default_factory=dict)
    text: dict[str, str] = Field(default_factory=dict, description="language -> the sentence")


class NameAllocation(BaseModel):
    symbol: str
    name: str = ""
    industry: str = ""
    action: str | None
    probability: float | None = Field(description="P(up) the size used (the confidence when uncalibrated)")
    calibrated: bool
    edge: float | None = Field(description="probability - 0.5")
    volatility: float | None = Field(description="annualised, over the window")
    raw_weight: float = Field(description="the volatility-targeted size before any cap")
    current_weight: float
    target_weight: float
    reasons: list[Reason] = Field(default_factory=list)


class BookRisk(BaseModel):
    """Risk figures of one book held at fixed weights over the window (cash earns nothing)."""

    volatility: float = Field(description="annualised, from the shrunk covariance the budget uses")
    realised_volatility: float = Field(description="annualised, of the book's daily returns in the window")
    beta: float | None = Field(description="to the benchmark, over the window")
    max_drawdown: float = Field(description="largest fall of the book's value in the window, <= 0")
    top_weight: float
    hhi: float = Field(description="Herfindahl index of the invested weights (1 = one name)")
    effective_names: float = Field(description="1 / HHI")
    cash_weight: float
    invested_weight: float


class Trade(BaseModel):
    symbol: str
    side: str = Field(pattern="^(BUY|SELL)$")
    shares: float = Field(ge=0)
    price: float
    value: float
    costs: float = Field(ge=0)
    lot: int = Field(description="shares per lot (0: fractional)")
    locked_shares: float = Field(
        default=0.0, description="shares bought on the as-of day: not sellable (T+1)"
    )
    note: Reason | None = Field(default=None, description="why a sale is smaller: the T+1 lock")


class BookPoint(BaseModel):
    """One day of the window: the target book's and the benchmark's value (first day = 1.0)."""

    day: date
    target: float
    current: float
    benchmark: float | None


class PortfolioView(BaseModel):
    source: str = Field(description="watchlist | holdings")
    watchlist: str | None = None
    as_of: date
    book_value: float
    cash: float = Field(description="cash outside the positions (holdings: --cash; watchlist: the capital)")
    benchmark: str = Field(description="what the beta and the chart compare with")
    window_days: int
    window_start: date | None
    limits: dict[str, float]
    allocations: list[NameAllocation]
    current: BookRisk | None
    target: BookRisk | None
    trades: list[Trade]
    total_costs: float
    curve: list[BookPoint] = Field(default_factory=list)
    notes: list[Reason] = Field(default_factory=list, description="what applies to the whole view")


class HeldName(BaseModel):
    """What the book holds of one name on the as-of day: shares, their value at that day's close, and
    the shares bought that day (not sellable under T+1)."""

    shares: float = 0.0
    value: float = 0.0
    locked: float = 0.0


class ViewRequest(BaseModel):
    """A checked request of a portfolio view, with what the check resolved: the names sized (of the
    book's one market), those left out, and the book held. It is the view's job configuration: the
    same request over the same watchlist and holdings names the same job; a changed list or book
    names another."""

    source: Literal["watchlist", "holdings"]
    watchlist: str | None = None
    as_of: date
    capital: float | None = Field(default=None, description="a watchlist's book value; None for holdings")
    cash: float = Field(default=0.0, description="cash beside the holdings; 0 for a watchlist")
    limits: dict[str, float]
    market: str = Field(description="the market the book is sized in (most of its names)")
    names: list[str] = Field(description="the names sized, in the list's order")
    outside: list[str] = Field(default_factory=list, description="names of another market, left out")
    held: dict[str, HeldName] = Field(default_factory=dict)
