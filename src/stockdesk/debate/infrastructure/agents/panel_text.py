"""The panel context, digests and earlier rounds as the short Chinese text the prompts show.

Sources are listed with short ids (N1 news, C1 chart, F1 filing) that a small model can copy;
each expert sees only the sections of the source kinds it is allowed to cite.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import timedelta

from stockdesk.debate.application.sources import clip
from stockdesk.debate.domain.dtos.panel import (
    ROLE_SOURCE_KINDS,
    PanelContext,
    PanelRole,
    PanelRound,
)
from stockdesk.research.application import ExpertView

NONE = "（无）"
TURN_CHARS = 200


def render_digests(digests: Sequence[ExpertView]) -> str:
    lines = []
    for d in digests:
        risks = "；".join(d.risks[:2])
        evidence = "；".join(c.text_zh for c in d.cards[:3]) or d.text
        line = f"- {d.expert}：{d.signal or d.stance}（{d.confidence:.2f}）{evidence}"
        lines.append(f"{line}；风险：{risks}" if risks else line)
    return "\n".join(lines) or NONE


def _ids(context: PanelContext) -> dict[str, str]:
    """Short id of each source by its identifying value (news pk, accession number, 'chart')."""
    ids: dict[str, str] = {}
    for c in context.sources:
        s = c.source
        key = s.pk if s.type == "article" else s.accession_number if s.type == "sec_filing" else s.type
        ids[key] = c.id
    return ids


def _news(context: PanelContext, ids: dict[str, str]) -> str:
    lines = []
    for n in context.news:
        lines.append(f"{ids.get(n.pk, '-')} {n.date} {n.title}（pk {n.pk}）")
    return "新闻：\n" + ("\n".join(lines) if lines else NONE)


def _price(context: PanelContext, ids: dict[str, str]) -> str:
    p = context.price
    if p is None:
        daily = "数据不足 / no daily bars"
    else:
        volume = f"，日均成交量 {p.avg_volume:,.0f}" if p.avg_volume is not None else ""
        daily = (
            f"{ids.get('chart', '-')} {p.start_date}~{p.end_date} 共 {p.days} 个交易日，"
            f"收盘 {p.first_close:g}→{p.last_close:g}（{p.pct_change:+.2f}%），"
            f"最高 {p.high:g}，最低 {p.low:g}{volume}"
        )
    return f"行情（近30日日线，代码计算）：{daily}\n日内：{context.intraday}"


def _filings(context: PanelContext, ids: dict[str, str]) -> str:
    lines = [
        f"{ids.get(f.accession_number, '-')} {f.form} {f.filed_date} {f.accession_number}"
        for f in context.filings
    ]
    return "公告：\n" + ("\n".join(lines) if lines else NONE)


def render_context(context: PanelContext, role: PanelRole) -> str:
    kinds = ROLE_SOURCE_KINDS[role]
    ids = _ids(context)
    parts = []
    if "article" in kinds:
        parts.append(_news(context, ids))
    if "chart" in kinds:
        parts.append(_price(context, ids))
    if "sec_filing" in kinds:
        parts.append(_filings(context, ids))
    return "\n\n".join(parts)


def render_rounds(rounds: Sequence[PanelRound], *, limit: int = TURN_CHARS) -> str:
    lines = []
    for played in rounds:
        for role, turn in played.turns().items():
            said = clip(turn.text, limit)
            lines.append(f"第{played.round}轮 {role}：{turn.action.value} {turn.confidence:.2f} — {said}")
    return "\n".join(lines) or NONE


def example_call(role: PanelRole, context: PanelContext) -> str:
    """A tool call this expert could start with, built from its own lists (small models copy a
    concrete example far more reliably than they follow a description)."""
    pks = [n.pk for n in context.news]
    if role == "fundamental" and context.filings:
        name = "get_sec_filing_content"
        arguments: dict[str, object] = {
            "ticker": context.ticker,
            "accession_numbers": [context.filings[0].accession_number],
        }
    elif role == "sentiment" or not pks:
        start = (context.as_of - timedelta(days=7)).isoformat()
        name = "get_ohlcv"
        arguments = {"ticker": context.ticker, "start_date": start, "end_date": context.as_of.isoformat()}
    else:
        name = "get_news_content"
        arguments = {"pks": [pks[1] if role == "growth" and len(pks) > 1 else pks[0]]}
    call = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"<tool_call>\n{call}\n</tool_call>"
