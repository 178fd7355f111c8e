"""load_context (spec 4): the thin lists and code-computed summaries every expert prompt starts from.

News titles, the filing list, the 30-day daily summary and the day's intraday summary: bodies,
filing pages and other price windows are fetched by the experts themselves through the tools, in
their turn, when they need them.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from stockdesk.debate.application.panel_tools import PanelTools
from stockdesk.debate.domain.dtos.panel import (
    ArticleSource,
    ChartSource,
    CitableSource,
    FilingBrief,
    NewsBrief,
    PanelContext,
    PriceSummary,
    SecFilingSource,
)

NO_INTRADAY = "数据不足 / no intraday data"
PRICE_WINDOW_DAYS = 30
INTRADAY_LOOKBACK_DAYS = 6  # reaches back over a weekend and a holiday to the latest trading day
PREFERRED_FORMS = ["10-K", "10-Q"]


def load_context(
    tools: PanelTools,
    ticker: str,
    as_of: date,
    *,
    news_limit: int = 8,
    filing_limit: int = 4,
) -> PanelContext:
    news = _news(tools, ticker, as_of, news_limit)
    price, chart = _price(tools, ticker, as_of)
    filings = _filings(tools, ticker, as_of, filing_limit)
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
        sources=sources,
    )


def _news(tools: PanelTools, ticker: str, as_of: date, limit: int) -> list[NewsBrief]:
    listed = tools.get_news_list(tickers=[ticker], as_of=as_of)["articles"][:limit]
    return [
        NewsBrief(pk=a["pk"], title=a["title"], date=a["gsi_utc_pk"].removeprefix("UTC#")) for a in listed
    ]


def _price(tools: PanelTools, ticker: str, as_of: date) -> tuple[PriceSummary | None, ChartSource | None]:
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


def _intraday(tools: PanelTools, ticker: str, as_of: date) -> str:
    """The latest trading day's 5-minute bars at or before `as_of` (a weekend reads Friday)."""
    start = (as_of - timedelta(days=INTRADAY_LOOKBACK_DAYS)).isoformat()
    answer = tools.get_ohlcv(
        ticker=ticker, start_date=start, end_date=as_of.isoformat(), interval="5m", as_of=as_of
    )
    rows = [r for r in answer.get("rows", []) if r.get("close") is not None]
    if not rows:
        return NO_INTRADAY
    day = str(rows[-1]["ts"])[:10]
    return summarize_intraday([r for r in rows if str(r["ts"]).startswith(day)])


def summarize_intraday(rows: list[dict[str, Any]]) -> str:
    """One line of a day's 5m bars: open -> last close, change from the open, when the high and
    low were, total volume, and the last bar's time (so a partial day shows as one)."""
    first, last = rows[0], rows[-1]
    opened = float(first["open"] if first.get("open") is not None else first["close"])
    close = float(last["close"])
    high = max(rows, key=lambda r: float(r["high"] if r.get("high") is not None else r["close"]))
    low = min(rows, key=lambda r: float(r["low"] if r.get("low") is not None else r["close"]))
    change = (close / opened - 1.0) * 100.0 if opened else 0.0
    volume = sum(float(r["volume"]) for r in rows if r.get("volume") is not None)

    def hhmm(row: dict[str, Any]) -> str:
        return str(row["ts"])[11:16]

    high_value = float(high["high"] if high.get("high") is not None else high["close"])
    low_value = float(low["low"] if low.get("low") is not None else low["close"])
    span = f"{len(rows)} 根，{hhmm(first)}-{hhmm(last)}"
    return (
        f"{str(first['ts'])[:10]} 5m（{span}）：开 {opened:g} → 收 {close:g}（{change:+.2f}%），"
        f"最高 {high_value:g}（{hhmm(high)}），最低 {low_value:g}（{hhmm(low)}），成交量 {volume:,.0f}"
    )


def _filings(tools: PanelTools, ticker: str, as_of: date, limit: int) -> list[FilingBrief]:
    listed = tools.get_sec_filing_list(ticker=ticker, forms=PREFERRED_FORMS, limit=limit, as_of=as_of)
    if not listed["filings"]:  # no 10-K/10-Q (e.g. not a US listing): whatever forms are stored
        listed = tools.get_sec_filing_list(ticker=ticker, limit=limit, as_of=as_of)
    return [
        FilingBrief(form=f["form"], filed_date=f["filed_date"], accession_number=f["accession_number"])
        for f in listed["filings"]
    ]
