"""load_context (spec 4): the thin lists and code-computed summaries every expert prompt starts from.

Our LLMService has no function calling, so the panel runs in the spec's pre-loaded mode for every
provider: the tools are called here, once, in code, and their results go into the prompts. News
bodies are loaded for the newest few only; the filing's page index only for the newest filing.
"""

from __future__ import annotations

import logging
from datetime import date, timedelta
from typing import Any

from stockdesk.debate.domain.dtos.panel import (
    ArticleSource,
    ChartSource,
    CitableSource,
    FilingBrief,
    FilingIndex,
    NewsBrief,
    PageSummary,
    PanelContext,
    PriceSummary,
    SecFilingSource,
)
from stockdesk.debate.domain.ports.panel import IPanelToolsPort
from stockdesk.shared.errors import StockdeskError

logger = logging.getLogger(__name__)
NO_INTRADAY = "数据不足 / no intraday data"
PRICE_WINDOW_DAYS = 30
PREFERRED_FORMS = ["10-K", "10-Q"]


def load_context(
    tools: IPanelToolsPort,
    ticker: str,
    as_of: date,
    *,
    news_limit: int = 8,
    news_bodies: int = 3,
    body_chars: int = 600,
    filing_limit: int = 4,
) -> PanelContext:
    news = _news(tools, ticker, as_of, news_limit, news_bodies, body_chars)
    price, chart = _price(tools, ticker, as_of)
    filings, filing_index = _filings(tools, ticker, as_of, filing_limit)
    sources = [
        CitableSource(id=f"N{i}", source=ArticleSource(pk=n.pk, title=n.title)) for i, n in enumerate(news, 1)
    ]
    if chart is not None:
        sources.append(CitableSource(id="C1", source=chart))
    sources += [
        CitableSource(
            id=f"F{i}",
            source=SecFilingSource(
                ticker=ticker, form=f.form, filed_date=f.filed_date, accession_number=f.accession_number
            ),
        )
        for i, f in enumerate(filings, 1)
    ]
    return PanelContext(
        ticker=ticker,
        as_of=as_of,
        news=news,
        price=price,
        intraday=_intraday(tools, ticker, as_of),
        filings=filings,
        filing_index=filing_index,
        sources=sources,
    )


def _news(
    tools: IPanelToolsPort, ticker: str, as_of: date, limit: int, bodies: int, body_chars: int
) -> list[NewsBrief]:
    listed = tools.get_news_list(tickers=[ticker], as_of=as_of)["articles"][:limit]
    briefs = [
        NewsBrief(pk=a["pk"], title=a["title"], date=a["gsi_utc_pk"].removeprefix("UTC#")) for a in listed
    ]
    wanted = [b.pk for b in briefs[:bodies]]
    if wanted:
        loaded = {a["pk"]: a for a in tools.get_news_content(pks=wanted, as_of=as_of)["articles"]}
        for brief in briefs:
            body = (loaded.get(brief.pk) or {}).get("body") or ""
            if body:
                brief.body = body if len(body) <= body_chars else body[:body_chars].rstrip() + "…"
    return briefs


def _price(
    tools: IPanelToolsPort, ticker: str, as_of: date
) -> tuple[PriceSummary | None, ChartSource | None]:
    start = as_of - timedelta(days=PRICE_WINDOW_DAYS)
    answer = tools.get_ohlcv(
        ticker=ticker, start_date=start.isoformat(), end_date=as_of.isoformat(), interval="1d", as_of=as_of
    )
    rows = [r for r in answer.get("rows", []) if r.get("close") is not None]
    if not rows:
        return None, None
    summary = summarize_rows(rows)
    chart = ChartSource(ticker=ticker, start_date=summary.start_date, end_date=summary.end_date)
    return summary, chart


def summarize_rows(rows: list[dict[str, Any]]) -> PriceSummary:
    """First/last close, % change, high, low and average volume of OHLCV rows (oldest first)."""
    closes = [float(r["close"]) for r in rows]
    highs = [float(r["high"] if r.get("high") is not None else r["close"]) for r in rows]
    lows = [float(r["low"] if r.get("low") is not None else r["close"]) for r in rows]
    volumes = [float(r["volume"]) for r in rows if r.get("volume") is not None]
    change = (closes[-1] / closes[0] - 1.0) * 100.0 if closes[0] else 0.0
    return PriceSummary(
        start_date=str(rows[0]["ts"])[:10],
        end_date=str(rows[-1]["ts"])[:10],
        days=len(rows),
        first_close=round(closes[0], 4),
        last_close=round(closes[-1], 4),
        pct_change=round(change, 2),
        high=round(max(highs), 4),
        low=round(min(lows), 4),
        avg_volume=round(sum(volumes) / len(volumes), 1) if volumes else None,
    )


def _intraday(tools: IPanelToolsPort, ticker: str, as_of: date) -> str:
    day = as_of.isoformat()
    answer = tools.get_ohlcv(ticker=ticker, start_date=day, end_date=day, interval="5m", as_of=as_of)
    rows = [r for r in answer.get("rows", []) if r.get("close") is not None]
    if not rows:
        return NO_INTRADAY
    s = summarize_rows(rows)
    return f"{day} 5m: {s.first_close} -> {s.last_close} ({s.pct_change:+.2f}%), high {s.high}, low {s.low}"


def _filings(
    tools: IPanelToolsPort, ticker: str, as_of: date, limit: int
) -> tuple[list[FilingBrief], FilingIndex | None]:
    listed = tools.get_sec_filing_list(ticker=ticker, forms=PREFERRED_FORMS, limit=limit, as_of=as_of)
    if not listed["filings"]:  # no 10-K/10-Q (e.g. not a US listing): whatever forms are stored
        listed = tools.get_sec_filing_list(ticker=ticker, limit=limit, as_of=as_of)
    briefs = [
        FilingBrief(form=f["form"], filed_date=f["filed_date"], accession_number=f["accession_number"])
        for f in listed["filings"]
    ]
    if not briefs:
        return [], None
    newest = briefs[0]
    try:
        content = tools.get_sec_filing_content(
            ticker=ticker, accession_numbers=[newest.accession_number], as_of=as_of
        )
    except StockdeskError as exc:  # spec 4.3: the debate goes on without the filing's index
        logger.warning("no page index for %s %s: %s", ticker, newest.accession_number, exc.message)
        return briefs, None
    found = content["filings"][0] if content["filings"] else {"index": [], "total_pages": 0}
    index = FilingIndex(
        accession_number=newest.accession_number,
        form=newest.form,
        filed_date=newest.filed_date,
        total_pages=found["total_pages"],
        index=[PageSummary(page=str(p["page"]), page_summary=p["page_summary"]) for p in found["index"]],
    )
    return briefs, index
