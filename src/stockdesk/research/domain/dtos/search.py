"""Search DTOs shared by the two soft-intelligence experts (macro intelligence, catalyst detective).

A `SearchDimensionConfig` is one dimension's whole search: topic, query template, count and
freshness. The experts' search data loops over a list of them; nothing about a query lives in code.
Templates use the context placeholders {stock_name}, {industry}, {year} (not counted as
keywords) and at most three core keywords separated by spaces; a multi-word keyword is quoted
("interest rates") and counts once.
"""

from __future__ import annotations

import re
import shlex
from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Freshness = Literal["oneDay", "oneWeek", "oneMonth", "oneYear", "noLimit"]
FRESHNESS_ORDER: tuple[Freshness, ...] = ("oneDay", "oneWeek", "oneMonth", "oneYear", "noLimit")
CONTEXT_PLACEHOLDERS = ("stock_name", "industry", "year")
MIN_COUNT, MAX_COUNT, MAX_CORE_KEYWORDS = 4, 10, 3
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def core_keywords(template: str) -> list[str]:
    """The domain keywords of a template: everything but the context placeholders."""
    return shlex.split(_PLACEHOLDER.sub(" ", template))


class SearchDimensionConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str = Field(description="stable key, e.g. monetary_policy")
    topic: str = Field(description="the dimension as the expert names it, e.g. 货币政策")
    query_template: str = Field(description="Chinese query, for A-shares")
    query_template_en: str = Field(description="English query, for US listings")
    count: int = Field(ge=MIN_COUNT, le=MAX_COUNT)
    freshness: Freshness
    stock_scoped: bool = Field(description="search this stock's news only (else the whole market's)")

    def template_for(self, language: str) -> str:
        return self.query_template_en if language == "en" else self.query_template

    def render(self, context: StockSearchContext) -> str:
        values = {"stock_name": context.stock_name, "industry": context.industry, "year": str(context.year)}
        query = self.template_for(context.language).format(**values)
        return " ".join(query.split())


class StockSearchContext(BaseModel):
    """What a query template is filled with."""

    symbol: str
    stock_name: str
    industry: str = ""
    market: str
    language: Literal["zh", "en"]
    as_of: date

    @property
    def year(self) -> int:
        return self.as_of.year


class SearchResultItem(BaseModel):
    title: str
    url: str
    snippet: str = ""
    summary: str = ""
    site_name: str = ""
    published_date: datetime | None = None


class DimensionSearchResult(BaseModel):
    """One dimension's search as it was run: the query, parameters and the kept results."""

    name: str
    topic: str
    query: str
    freshness: Freshness
    count: int
    provider: str
    results_before_filter: int
    items: list[SearchResultItem] = Field(default_factory=list)


class SearchSnapshotDTO(BaseModel):
    """Everything a soft-intelligence expert is shown; `search_context` is the text sent."""

    symbol: str
    stock_name: str
    industry: str
    market: str
    as_of: date
    dimensions: list[DimensionSearchResult]
    has_information: bool
    source_urls: list[str]
    search_context: str
