"""Watchlists and positions as the store holds them (no prices: valuation is the application's)."""

from __future__ import annotations

import re
from datetime import date, datetime

from pydantic import BaseModel, Field

DEFAULT_ACCOUNT = "default"
MAX_QUANTITY = 1e12  # shares: beyond any real position, and products of two bounds stay finite
MAX_PRICE = 1e9  # a share's cost in its listing currency
NAME_RULE = r"^[\w.\-]([\w.\- ]{0,62}[\w.\-])?$"  # a list or account name (also in URLs): no edge spaces
NAME_PATTERN = re.compile(NAME_RULE)


class WatchlistMember(BaseModel):
    symbol: str
    added_at: datetime
    position: int = Field(description="order in the list, from 0")


class Watchlist(BaseModel):
    name: str
    created_at: datetime
    members: list[WatchlistMember] = Field(default_factory=list)

    @property
    def symbols(self) -> list[str]:
        return [m.symbol for m in sorted(self.members, key=lambda m: m.position)]


class Position(BaseModel):
    """What is held in one account: `quantity` shares bought at `cost_price` a share on average
    (in the symbol's listing currency; numbers carry no currency), opened on `opened_at` if known."""

    account: str = DEFAULT_ACCOUNT
    symbol: str
    quantity: float = Field(gt=0, le=MAX_QUANTITY)
    cost_price: float = Field(ge=0, le=MAX_PRICE)
    opened_at: date | None = None
    updated_at: datetime | None = None
