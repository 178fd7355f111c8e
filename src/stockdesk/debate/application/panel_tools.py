"""The panel's five tools (spec 5.1-5.5) over the local store, through data_engineering's use cases.

Same input/output JSON as the spec; the store replaces S3, yfinance and EDGAR, so there is no
network here. Every read is point in time (each tool takes `as_of` beside the spec's arguments):
news published by the end of `as_of` (UTC, as stored), bars up to `as_of`, filings filed by
`as_of`. Article pks are derived from the stored URL (`id#{symbol}:{sha1(url)[:12]}`), so they are
stable across runs and re-imports.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date
from typing import Any
from zoneinfo import ZoneInfo

from stockdesk.data_engineering.application import (
    DailyBarDTO,
    FilingDTO,
    GetDailyBarsUseCase,
    GetFilingPagesUseCase,
    GetFilingsUseCase,
    GetIntradayBarsUseCase,
    GetNewsUseCase,
    GetStockBasicInfoUseCase,
    IntradayBarDTO,
    NewsItemDTO,
)
from stockdesk.shared.errors import BadRequestException

PAGE_CHARS = 20_000  # the store's filing page size
MAX_OHLCV_ROWS = 500
NEWS_SCAN_LIMIT = 200
BODY_CHARS = 4000
EASTERN = ZoneInfo("America/New_York")
INTRADAY_INTERVALS = ("5m", "15m", "30m", "60m", "1h")  # 5m as stored; the others aggregated from it


@dataclass(frozen=True)
class PanelData:
    """The data_engineering use cases the tools read (`securities` only adds CIK and company name;
    without `intraday` every intraday request answers `no_intraday_data`)."""

    news: GetNewsUseCase
    bars: GetDailyBarsUseCase
    filings: GetFilingsUseCase
    filing_pages: GetFilingPagesUseCase
    securities: GetStockBasicInfoUseCase | None = None
    intraday: GetIntradayBarsUseCase | None = None


def news_pk(item: NewsItemDTO) -> str:
    return f"id#{item.symbol}:{hashlib.sha1(item.url.encode('utf-8')).hexdigest()[:12]}"


def _symbol_of(pk: str) -> str | None:
    body = pk.strip().removeprefix("id#")
    return body.rsplit(":", 1)[0] if ":" in body else None


def canonical_pk(pk: str) -> str:
    """`id#AAPL:3f2a...`; small models often drop the `id#` (the rest still names one article)."""
    return "id#" + pk.strip().removeprefix("id#")


def _day(value: str, field: str) -> date:
    try:
        return date.fromisoformat(value.strip())
    except (AttributeError, ValueError) as exc:
        raise BadRequestException(f"{field} must be YYYY-MM-DD (got {value!r})") from exc


def _digits(accession: str) -> str:
    return re.sub(r"\D", "", accession or "")


# A filing's page index: (filing meta, its pages) -> (one summary per page, whether it came from
# the cache). FilingPageIndex.index in infrastructure: an LLM summarises the pages once.
PageIndexer = Callable[[dict[str, Any], list[str]], tuple[list[dict[str, str]], bool]]


class PanelTools:
    """The tools every panel expert may call (spec 5), each bound to the debate date by the tool
    definitions; `page_index` summarises a filing's pages for get_sec_filing_list."""

    def __init__(
        self,
        data: PanelData,
        page_index: PageIndexer,
        *,
        news_scan_limit: int = NEWS_SCAN_LIMIT,
        body_chars: int = BODY_CHARS,
        max_ohlcv_rows: int = MAX_OHLCV_ROWS,
    ):
        self._data = data
        self._index = page_index
        self._scan = news_scan_limit
        self._body_chars = body_chars
        self._max_rows = max_ohlcv_rows

    # ---- news (5.1, 5.2) ---------------------------------------------------------------------------
    def _visible_news(self, ticker: str, as_of: date) -> list[NewsItemDTO]:
        items = self._data.news.execute(ticker, as_of, limit=self._scan)
        return [i for i in items if i.published_at is not None and i.published_at.date() <= as_of]

    def get_news_list(
        self, tickers: list[str], keywords: list[str] | None = None, *, as_of: date
    ) -> dict[str, Any]:
        words = [w.casefold() for w in keywords or [] if w.strip()]
        articles: list[dict[str, Any]] = []
        for ticker in tickers:
            for item in self._visible_news(ticker, as_of):
                text = f"{item.title} {item.summary or ''}".casefold()
                if words and not any(w in text for w in words):
                    continue
                articles.append(_article(item))
        articles.sort(key=lambda a: a["utc_ms"], reverse=True)
        return {
            "count": len(articles),
            "filters": {"tickers": list(tickers), "keywords": list(keywords or [])},
            "articles": articles,
        }

    def get_news_content(self, pks: list[str], bucket: str | None = None, *, as_of: date) -> dict[str, Any]:
        """`bucket` is accepted for the spec's shape; bodies come from the store."""
        by_symbol: dict[str, dict[str, NewsItemDTO]] = {}
        articles = []
        for pk in pks:
            symbol = _symbol_of(pk)
            if symbol is None:
                continue
            if symbol not in by_symbol:
                by_symbol[symbol] = {news_pk(i): i for i in self._visible_news(symbol, as_of)}
            item = by_symbol[symbol].get(canonical_pk(pk))
            if item is None:
                continue
            body = " ".join((item.body or item.summary or "").split())
            articles.append(
                {
                    "pk": canonical_pk(pk),
                    "title": item.title,
                    "body": body[: self._body_chars],
                    "cached": True,
                    "body_truncated": len(body) > self._body_chars,
                }
            )
        return {"count": len(articles), "articles": articles}

    # ---- prices (5.3) ------------------------------------------------------------------------------
    def get_ohlcv(
        self, ticker: str, start_date: str, end_date: str, interval: str = "1d", *, as_of: date
    ) -> dict[str, Any]:
        """Daily rows (`ts` = the date at midnight) or intraday rows (`ts` = the bar's start in exchange
        time with its offset, e.g. 2024-07-26T09:30:00-04:00), trading days start..min(end, as_of)."""
        start, end = _day(start_date, "start_date"), _day(end_date, "end_date")
        if end < start:
            raise BadRequestException(f"end_date {end_date} is before start_date {start_date}")
        answer: dict[str, Any] = {
            "ticker": ticker,
            "start_date": start.isoformat(),
            "end_date": end.isoformat(),
            "interval": interval,
            "rows": [],
        }
        if interval in INTRADAY_INTERVALS:
            return self._intraday(answer, ticker, start, min(end, as_of), interval, as_of)
        if interval != "1d":
            supported = ", ".join(("1d", *INTRADAY_INTERVALS))
            raise BadRequestException(f"interval must be one of {supported} (got {interval!r})")
        bars = self._data.bars.execute(ticker, as_of, start, min(end, as_of))
        if len(bars) > self._max_rows:
            return {**answer, "error": "too_many_rows"}
        answer["rows"] = [_row(f"{b.trade_date.isoformat()}T00:00:00", b) for b in bars]
        return answer

    def _intraday(
        self, answer: dict[str, Any], ticker: str, start: date, end: date, interval: str, as_of: date
    ) -> dict[str, Any]:
        if self._data.intraday is None:
            return {**answer, "error": "no_intraday_data"}
        bars = self._data.intraday.execute(ticker, as_of, start, end, interval=interval)
        if not bars:
            return {**answer, "error": "no_intraday_data"}
        if len(bars) > self._max_rows:
            return {**answer, "error": "too_many_rows"}
        answer["rows"] = [_row(b.ts.isoformat(), b) for b in bars]
        return answer

    # ---- filings (5.4, 5.5) ------------------------------------------------------------------------
    def get_sec_filing_list(
        self, ticker: str, forms: list[str] | None = None, limit: int = 6, *, as_of: date
    ) -> dict[str, Any]:
        wanted = [f.strip().upper() for f in forms or [] if f.strip()] or None
        filings = self._data.filings.execute(ticker, as_of, wanted)[: max(limit, 0)]
        security = self._data.securities.execute(ticker) if self._data.securities else None
        codes = security.provider_codes if security else {}
        return {
            "ticker": security.symbol if security else ticker.strip().upper(),
            "cik": codes.get("sec_cik") or codes.get("sec"),
            "company_name": security.name if security else None,
            "count": len(filings),
            "filings": [
                {
                    "form": f.form,
                    "filed_date": f.filed_date.isoformat(),
                    "report_date": f.report_date.isoformat() if f.report_date else None,
                    "accession_number": f.accession_number,
                    "primary_document": f.url.rsplit("/", 1)[-1] if f.url else None,
                }
                for f in filings
            ],
        }

    def get_sec_filing_content(
        self, ticker: str, accession_numbers: list[str], page: int | None = None, *, as_of: date
    ) -> dict[str, Any]:
        """Without `page`: the page index only. With `page`: the index and that page's content."""
        visible = {_digits(f.accession_number): f for f in self._data.filings.execute(ticker, as_of)}
        answers = []
        for accession in accession_numbers:
            filing = visible.get(_digits(accession))
            if filing is not None:
                answers.append(self._filing_content(filing, page, as_of))
        return {"count": len(answers), "filings": answers}

    def _filing_content(self, filing: FilingDTO, page: int | None, as_of: date) -> dict[str, Any]:
        pages = [
            p.text for p in self._data.filing_pages.execute(filing.symbol, filing.accession_number, as_of)
        ]
        meta = {
            "ticker": filing.symbol,
            "accession_number": filing.accession_number,
            "form": filing.form,
            "filed_date": filing.filed_date.isoformat(),
        }
        index, cached = self._index(meta, pages)
        answer: dict[str, Any] = {
            "accession_number": filing.accession_number,
            "form": filing.form,
            "filed_date": meta["filed_date"],
            "url": filing.url,
            "index": index,
            "total_pages": len(pages),
            "cached": cached,
        }
        if page is None:
            return answer
        if not 1 <= page <= len(pages):
            return {**answer, "page": page, "error": "page_out_of_range"}
        return {**answer, "page": page, "content": pages[page - 1][:PAGE_CHARS]}


def _row(ts: str, bar: DailyBarDTO | IntradayBarDTO) -> dict[str, Any]:
    """One get_ohlcv row (spec 5.3), daily or intraday alike."""
    return {
        "ts": ts,
        "open": bar.open,
        "high": bar.high,
        "low": bar.low,
        "close": bar.close,
        "volume": bar.volume,
    }


def _article(item: NewsItemDTO) -> dict[str, Any]:
    assert item.published_at is not None
    utc = item.published_at.replace(tzinfo=UTC)  # stored as naive UTC
    return {
        "pk": news_pk(item),
        "title": item.title,
        "url": item.url,
        "tickers": [item.symbol],
        "publish_et_iso": utc.astimezone(EASTERN).isoformat(),
        "gsi_utc_pk": f"UTC#{utc.date().isoformat()}",
        "utc_ms": int(utc.timestamp() * 1000),
        "path": None,  # bodies live in the store, not in a bucket
    }
