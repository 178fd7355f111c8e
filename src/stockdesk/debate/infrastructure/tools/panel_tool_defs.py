"""The panel's five tools (spec 5) as functions a model can call, fixed to the debate's date.

Argument models carry the spec's input JSON fields; the model never passes `as_of`: every tool is
bound to the debate date here, so nothing published after it can be asked for. Bounds on list
sizes and pages keep one answer within what a small model can read.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

from stockdesk.debate.application.panel_tools import PanelTools
from stockdesk.llm_platform.application.tool_loop import Tool

DAY = r"^\d{4}-\d{2}-\d{2}$"
Interval = Literal["1d", "5m", "15m", "30m", "1h", "60m"]


class NewsListArgs(BaseModel):
    tickers: list[str] = Field(min_length=1, max_length=5, description='tickers, e.g. ["AAPL"]')
    keywords: list[str] = Field(default_factory=list, max_length=5, description="title/summary words")


class NewsContentArgs(BaseModel):
    pks: list[str] = Field(min_length=1, max_length=3, description="article pks from the news list")
    bucket: str | None = None


class OhlcvArgs(BaseModel):
    ticker: str = Field(min_length=1)
    start_date: str = Field(pattern=DAY, description="YYYY-MM-DD")
    end_date: str = Field(pattern=DAY, description="YYYY-MM-DD")
    interval: Interval = "1d"


class FilingListArgs(BaseModel):
    ticker: str = Field(min_length=1)
    forms: list[str] | None = Field(default=None, max_length=6, description='e.g. ["10-K", "10-Q"]')
    limit: int = Field(default=6, ge=1, le=20)


class FilingContentArgs(BaseModel):
    ticker: str = Field(min_length=1)
    accession_numbers: list[str] = Field(min_length=1, max_length=2)
    page: int | None = Field(default=None, ge=1, description="omit for the page index only")


def panel_tools(port: PanelTools, as_of: date) -> list[Tool]:
    """The five tools over `port`, reading nothing after `as_of`."""
    return [
        Tool(
            "get_news_list",
            "List news articles (pk, title, time) about tickers, newest first; optional keywords.",
            NewsListArgs,
            lambda a: port.get_news_list(a.tickers, a.keywords or None, as_of=as_of),
        ),
        Tool(
            "get_news_content",
            "Bodies of news articles by pk (from the news list).",
            NewsContentArgs,
            lambda a: port.get_news_content(a.pks, a.bucket, as_of=as_of),
        ),
        Tool(
            "get_ohlcv",
            "OHLCV price bars of a ticker between two dates; interval 1d, or 5m/15m/30m/1h intraday.",
            OhlcvArgs,
            lambda a: port.get_ohlcv(a.ticker, a.start_date, a.end_date, a.interval, as_of=as_of),
        ),
        Tool(
            "get_sec_filing_list",
            "List a ticker's filings (form, filed_date, accession_number), newest first.",
            FilingListArgs,
            lambda a: port.get_sec_filing_list(a.ticker, a.forms, a.limit, as_of=as_of),
        ),
        Tool(
            "get_sec_filing_content",
            "A filing's page index (page summaries); with page=N also that page's text.",
            FilingContentArgs,
            lambda a: port.get_sec_filing_content(a.ticker, a.accession_numbers, a.page, as_of=as_of),
        ),
    ]
