"""Full-text index over stored news and filing pages: tokenising, query building, searching.

SQLite's FTS5 has no Chinese word splitter, and sqlite3 cannot register a Python tokenizer, so
text is tokenised here before it is stored: every CJK character becomes its own token, and a
Chinese query word becomes a phrase of its characters ("茅台" -> "茅 台"). English words pass
through to FTS5's porter stemmer ("sales" finds "sale"). PostgreSQL indexes the same column with
to_tsvector('english') (migration 0011), which stems alike; the SQL below must use the same
configuration as that index, or PostgreSQL cannot use it.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any

import pandas as pd
from sqlalchemy import Connection, text

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_CHAR = re.compile(f"([{_CJK}])")
_TERM = re.compile(rf"[{_CJK}]+|[^\W_]+", re.UNICODE)
_IS_CJK = re.compile(f"^[{_CJK}]+$")
MAX_TERMS = 12
SNIPPET_CHARS = 240


def index_text(frame: pd.DataFrame, columns: list[str]) -> pd.Series:
    """The `search_text` column: the given text columns joined, CJK characters spaced out."""
    parts = [frame[c].fillna("").astype(str) for c in columns if c in frame.columns]
    if not parts:
        return pd.Series([None] * len(frame), index=frame.index, dtype=object)
    joined = parts[0]
    for part in parts[1:]:
        joined = joined + " \n" + part
    return joined.str.replace(_CJK_CHAR, r" \1 ", regex=True).str.lower()


def query_terms(query: str) -> list[str]:
    """Distinct search terms of a free-text query (CJK runs kept whole), in order."""
    seen: list[str] = []
    for term in _TERM.findall(query.lower()):
        if term not in seen:
            seen.append(term)
    return seen[:MAX_TERMS]


def fts5_match(terms: list[str]) -> str:
    """An FTS5 MATCH expression: any term, each as a quoted phrase (no FTS syntax leaks through)."""
    phrases = [" ".join(t) if _IS_CJK.match(t) else t for t in terms]
    return " OR ".join(f'"{p}"' for p in phrases)


def tsquery(terms: list[str]) -> str:
    """The PostgreSQL to_tsquery equivalent: CJK characters followed by each other, OR'd terms."""
    phrases = [" <-> ".join(t) if _IS_CJK.match(t) else t for t in terms]
    return " | ".join(f"({p})" for p in phrases)


def snippet(body: str | None, terms: list[str]) -> str:
    """A window of the original text around the first term found (the start when none is)."""
    if not body:
        return ""
    lowered = body.lower()
    hits = [i for i in (lowered.find(t) for t in terms) if i >= 0]
    start = max(0, min(hits) - SNIPPET_CHARS // 3) if hits else 0
    window = " ".join(body[start : start + SNIPPET_CHARS].split())
    return ("…" if start else "") + window + ("…" if start + SNIPPET_CHARS < len(body) else "")


_SQLITE_SQL = {
    "news": """
        SELECT n.id, n.symbol, n.published_at, n.title, n.summary, n.body, n.url, n.source,
               bm25(news_fts) AS rank
        FROM news_fts JOIN news_items n ON n.id = news_fts.rowid
        WHERE news_fts MATCH :match {filters}
        ORDER BY rank LIMIT :limit""",
    "filings": """
        SELECT p.id, p.symbol, f.filed_date AS published_at, f.form, f.report_date, p.page_no,
               p.text AS body, f.url, bm25(filing_fts) AS rank
        FROM filing_fts JOIN filing_pages p ON p.id = filing_fts.rowid
        JOIN filings f ON f.symbol = p.symbol AND f.accession_number = p.accession_number
        WHERE filing_fts MATCH :match {filters}
        ORDER BY rank LIMIT :limit""",
}
_POSTGRES_SQL = {
    "news": """
        SELECT n.id, n.symbol, n.published_at, n.title, n.summary, n.body, n.url, n.source,
               -ts_rank(to_tsvector('english', coalesce(n.search_text, '')), q) AS rank
        FROM news_items n, to_tsquery('english', :match) q
        WHERE to_tsvector('english', coalesce(n.search_text, '')) @@ q {filters}
        ORDER BY rank LIMIT :limit""",
    "filings": """
        SELECT p.id, p.symbol, f.filed_date AS published_at, f.form, f.report_date, p.page_no,
               p.text AS body, f.url, -ts_rank(to_tsvector('english', coalesce(p.search_text, '')), q) AS rank
        FROM filing_pages p JOIN filings f
             ON f.symbol = p.symbol AND f.accession_number = p.accession_number,
             to_tsquery('english', :match) q
        WHERE to_tsvector('english', coalesce(p.search_text, '')) @@ q {filters}
        ORDER BY rank LIMIT :limit""",
}
_DATE_COLUMN = {"news": "n.published_at", "filings": "f.filed_date"}


def search_index(
    conn: Connection,
    kind: str,
    terms: list[str],
    *,
    symbol: str | None,
    start: date | None,
    end: date,
    limit: int,
) -> list[dict[str, Any]]:
    """Best-ranked rows of one kind published in [start, end] (dated rows only: no look-ahead)."""
    column = _DATE_COLUMN[kind]
    is_news = kind == "news"
    # news carries a time of day; the whole of `end` counts
    upper: date | datetime = (
        datetime.combine(end + timedelta(days=1), datetime.min.time()) if is_news else end
    )
    filters = [f"AND {column} IS NOT NULL", f"AND {column} {'<' if is_news else '<='} :upper"]
    params: dict[str, Any] = {"limit": limit, "upper": upper}
    if start is not None:
        filters.append(f"AND {column} >= :start")
        params["start"] = datetime.combine(start, datetime.min.time()) if is_news else start
    if symbol:
        filters.append(f"AND {'n' if is_news else 'p'}.symbol = :symbol")
        params["symbol"] = symbol
    postgres = conn.dialect.name == "postgresql"
    params["match"] = tsquery(terms) if postgres else fts5_match(terms)
    sql = (_POSTGRES_SQL if postgres else _SQLITE_SQL)[kind].format(filters=" ".join(filters))
    return [dict(row) for row in conn.execute(text(sql), params).mappings()]
