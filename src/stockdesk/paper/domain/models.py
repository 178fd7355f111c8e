"""A paper book and its state: what it holds, what it traded, what it was worth each day.

Money is in the book's market currency. A trade's `costs` are the commission, stamp duty and
slippage the execution module charged on it. An order that could not be filled (limit-up at the
open for a buy, limit-down for a sale, no bar: suspended, or less than one lot) is kept as a trade
row with `filled` false, quantity 0 and the reason, so the book shows what it wanted and why not.
"""

from __future__ import annotations

from datetime import date, datetime

from pydantic import BaseModel, Field, field_validator

MARKETS = ("CN", "US")
MAX_WEIGHT = 0.2
"""Default cap of one name, a fraction of the book's equity."""
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"


class PaperBook(BaseModel):
    """A book's definition and where its state stands (`last_day`: the last day stepped)."""

    id: int = 0
    name: str = Field(pattern=NAME_PATTERN)
    market: str = Field(description="CN or US: the rules (T+1, lots, stamp duty) and costs follow it")
    capital: float = Field(gt=0.0, description="starting cash, in the market's currency")
    benchmark: str | None = Field(
        default=None, description="a stored symbol; None: the equal-weight universe (as the strategy lab)"
    )
    symbols: list[str] = Field(min_length=1, description="the universe the book trades")
    watchlist: str | None = Field(
        default=None,
        description="the watchlist the universe came from (its symbols when the book was opened)",
    )
    max_weight: float = Field(default=MAX_WEIGHT, gt=0.0, le=1.0)
    opened_at: datetime
    first_day: date | None = None
    last_day: date | None = None
    closed: bool = False

    @field_validator("market")
    @classmethod
    def _market(cls, value: str) -> str:
        code = value.strip().upper()
        if code not in MARKETS:
            raise ValueError(f"market must be one of {', '.join(MARKETS)}")
        return code

    @field_validator("symbols")
    @classmethod
    def _symbols(cls, value: list[str]) -> list[str]:
        cleaned = list(dict.fromkeys(s.strip().upper() for s in value if s.strip()))
        if not cleaned:
            raise ValueError("name at least one symbol")
        return cleaned


class DayVerdict(BaseModel):
    """The rules verdict a symbol got as of a day (None action: no verdict, e.g. no data)."""

    day: date
    symbol: str
    action: str | None
    confidence: float = 0.0
    note: str = ""


class DayOrder(BaseModel):
    """A decision of day `day` for one symbol: a target weight of the equity, filled at the next open."""

    day: date
    symbol: str
    target_weight: float = Field(ge=0.0, le=1.0)
    action: str


class PaperTrade(BaseModel):
    day: date
    symbol: str
    side: str = Field(pattern="^(BUY|SELL)$")
    quantity: float = Field(ge=0.0)
    price: float | None
    costs: float = 0.0
    reason: str
    filled: bool = True


class PaperMark(BaseModel):
    """The book at a day's close."""

    day: date
    cash: float
    positions_value: float
    equity: float
    benchmark: float | None = Field(default=None, description="the benchmark's close (an index level)")


class PaperPosition(BaseModel):
    symbol: str
    quantity: float
    cost: float = Field(description="average cost per share, costs included")
    bought_on: date = Field(description="the last day shares were bought (T+1: sellable the next day)")
    price: float | None = Field(default=None, description="the day's raw close")
    value: float = 0.0


class DayResult(BaseModel):
    """What stepping one day produced: stored in one transaction."""

    day: date
    verdicts: list[DayVerdict]
    orders: list[DayOrder]
    trades: list[PaperTrade]
    mark: PaperMark
    positions: list[PaperPosition]
