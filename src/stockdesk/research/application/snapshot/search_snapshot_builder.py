"""Pure builder of the soft-intelligence snapshot: search results -> the delimited text sent.

Search results are untrusted: each dimension's results sit between fixed markers, marker-like
text inside an article is defused, and every item is cut to a quotation-sized excerpt.
"""

from __future__ import annotations

import re

from stockdesk.research.domain.dtos.search import (
    DimensionSearchResult,
    SearchResultItem,
    SearchSnapshotDTO,
    StockSearchContext,
)

BLOCK_START = "<<<SEARCH_RESULTS>>>"
BLOCK_END = "<<<END_SEARCH_RESULTS>>>"
EXCERPT_CHARS = 280
FRESHNESS_TEXT = {
    "oneDay": "近一天",
    "oneWeek": "近一周",
    "oneMonth": "近一月",
    "oneYear": "近一年",
    "noLimit": "不限",
}
NO_INFORMATION = (
    "未检索到任何相关信息：搜索在分析日（含）之前没有返回与该标的相关的资料。"
    "请据实说明“数据不足”，不要推测或编造事件、数据和来源。"
)
_MARKERS = re.compile(r"<{2,}|>{2,}")


def quote(text: str, limit: int = EXCERPT_CHARS) -> str:
    """One line of untrusted text: markers defused, whitespace collapsed, cut on a word."""
    flat = " ".join(_MARKERS.sub("", text or "").split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    return (cut.rsplit(" ", 1)[0] if " " in cut[limit // 2 :] else cut) + "…"


def render_item(number: int, item: SearchResultItem) -> str:
    day = item.published_date.date().isoformat() if item.published_date else "日期不详"
    body = item.summary if item.summary.strip() else item.snippet
    return "\n".join(
        [
            f"[{number}] {day} · {quote(item.site_name, 60) or '来源不详'} · {item.url}",
            f"标题：{quote(item.title, 160)}",
            f"摘要：{quote(body)}",
        ]
    )


def render_dimension(result: DimensionSearchResult) -> str:
    header = (
        f"### 维度：{result.topic}（查询“{result.query}”，{FRESHNESS_TEXT[result.freshness]}，"
        f"{len(result.items)} 条）"
    )
    if not result.items:
        return f"{header}\n（该维度未检索到信息）"
    items = "\n".join(render_item(n, item) for n, item in enumerate(result.items, start=1))
    return f"{header}\n{BLOCK_START}\n{items}\n{BLOCK_END}"


class SearchSnapshotBuilder:
    def build(self, context: StockSearchContext, results: list[DimensionSearchResult]) -> SearchSnapshotDTO:
        urls = list(dict.fromkeys(i.url for r in results for i in r.items if i.url))
        has_information = any(r.items for r in results)
        blocks = [render_dimension(r) for r in results]
        text = "\n\n".join(blocks if has_information else [NO_INFORMATION, *blocks])
        return SearchSnapshotDTO(
            symbol=context.symbol,
            stock_name=context.stock_name,
            industry=context.industry,
            market=context.market,
            as_of=context.as_of,
            dimensions=results,
            has_information=has_information,
            source_urls=urls,
            search_context=text,
        )
