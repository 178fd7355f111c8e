"""The one web-search contract every provider speaks (Bocha's request shape, provider-neutral items).

`symbol` and `as_of` are optional context: the local news index uses them to stay point-in-time
(freshness counts back from `as_of`, nothing published after it); web providers use `as_of` only
to drop results dated later.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Literal

from pydantic import BaseModel, Field, field_validator

Freshness = Literal["oneDay", "oneWeek", "oneMonth", "oneYear", "noLimit"]
FRESHNESS_VALUES: tuple[Freshness, ...] = ("oneDay", "oneWeek", "oneMonth", "oneYear", "noLimit")
FRESHNESS_DAYS: dict[str, int | None] = {
    "oneDay": 1,
    "oneWeek": 7,
    "oneMonth": 31,
    "oneYear": 366,
    "noLimit": None,
}
MAX_COUNT = 50


def freshness_start(freshness: str, as_of: date) -> date | None:
    """First day a result may be published on, counting back from the analysis date."""
    days = FRESHNESS_DAYS[freshness]
    return None if days is None else as_of - timedelta(days=days)


class WebSearchRequest(BaseModel):
    query: str = Field(min_length=1, max_length=400)
    freshness: Freshness = "noLimit"
    count: int = Field(default=10, ge=1, le=MAX_COUNT)
    summary: bool = False
    symbol: str | None = Field(default=None, description="restricts the local index to one stock")
    as_of: date | None = Field(default=None, description="point in time; default today")

    @field_validator("query")
    @classmethod
    def _strip(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("query is blank")
        return value


class WebSearchItem(BaseModel):
    title: str = ""
    url: str = ""
    snippet: str = ""
    summary: str = ""
    site_name: str = ""
    published_date: datetime | None = None


class WebSearchResponse(BaseModel):
    query: str
    provider: str = Field(description="the provider that answered ('none' when every one failed)")
    items: list[WebSearchItem] = Field(default_factory=list)
    cached: bool = False
    errors: list[str] = Field(default_factory=list, description="providers that failed before this one")


class SearchCallRecord(BaseModel):
    """One audited provider call (or cache hit)."""

    run_id: str | None = None
    provider: str
    query: str
    freshness: str
    count: int
    status: Literal["ok", "error", "cache_hit"]
    latency_ms: float = 0.0
    result_count: int = 0
    error: str | None = None
