"""Sources an expert may cite because its own tool calls returned them in that turn (spec 3).

Each source gets its identifying value as id (article pk, accession number, a chart's range) so a
model can cite what a tool showed it; nothing a tool did not return becomes citable.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from stockdesk.debate.domain.dtos.panel import ArticleSource, ChartSource, CitableSource, SecFilingSource
from stockdesk.debate.domain.ports.panel import ToolUse


def _articles(result: dict[str, Any]) -> Iterator[CitableSource]:
    for a in result.get("articles") or []:
        if a.get("pk") and a.get("title"):
            yield CitableSource(id=str(a["pk"]), source=ArticleSource(pk=str(a["pk"]), title=str(a["title"])))


def _chart(result: dict[str, Any]) -> Iterator[CitableSource]:
    rows = result.get("rows") or []
    if rows and result.get("ticker"):
        ticker, start, end = str(result["ticker"]), str(rows[0]["ts"])[:10], str(rows[-1]["ts"])[:10]
        chart = ChartSource(ticker=ticker, start_date=start, end_date=end)
        yield CitableSource(id=f"chart:{ticker}:{start}:{end}", source=chart)


def _filings(result: dict[str, Any], ticker: str) -> Iterator[CitableSource]:
    for f in result.get("filings") or []:
        if f.get("accession_number") and f.get("form") and f.get("filed_date"):
            source = SecFilingSource(
                ticker=ticker,
                form=str(f["form"]),
                filed_date=str(f["filed_date"]),
                accession_number=str(f["accession_number"]),
            )
            yield CitableSource(id=source.accession_number, source=source)


def tool_sources(uses: Sequence[ToolUse]) -> list[CitableSource]:
    """Every source the turn's successful tool calls returned, once each, in call order."""
    found: dict[str, CitableSource] = {}
    for use in uses:
        result = use.result if isinstance(use.result, dict) else None
        if use.status not in ("ok", "cached") or result is None:
            continue
        if use.name in ("get_news_list", "get_news_content"):
            items = _articles(result)
        elif use.name == "get_ohlcv":
            items = _chart(result)
        elif use.name in ("get_sec_filing_list", "get_sec_filing_content"):
            ticker = str(result.get("ticker") or use.arguments.get("ticker") or "").strip().upper()
            items = _filings(result, ticker)
        else:
            continue
        for item in items:
            found.setdefault(item.id, item)
    return list(found.values())
