"""Re-validation of the sources an expert cites: only sources it was given survive (spec 3).

A cited source is kept when its canonical key (type + identifying fields, normalised) equals the key
of one allowed source; the allowed entry is kept (same source, clean spelling). Anything else is
dropped and counted, never replaced by a "closest" allowed source.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from stockdesk.debate.domain.dtos.panel import CitableSource, Source

_SOURCE = TypeAdapter(Source)
_DATE = re.compile(r"^(\d{4})[-/.]?(\d{1,2})[-/.]?(\d{1,2})")


def _text(value: Any) -> str:
    return " ".join(str(value or "").split()).casefold()


def _day(value: Any) -> str:
    """`2024-03-01`, `20240301`, `2024/3/1`, `2024-03-01T00:00:00` -> `2024-03-01`."""
    raw = str(value or "").strip()
    match = _DATE.match(raw)
    if not match:
        return _text(raw)
    year, month, day = match.groups()
    return f"{year}-{int(month):02d}-{int(day):02d}"


def _accession(value: Any) -> str:
    """With or without dashes, the 18 digits identify a filing."""
    digits = re.sub(r"\D", "", str(value or ""))
    return digits or _text(value)


def canonical_key(source: Source) -> tuple[str, ...]:
    if source.type == "article":
        return ("article", _text(source.pk))
    if source.type == "chart":
        return ("chart", _text(source.ticker), _day(source.start_date), _day(source.end_date))
    if source.type == "event":
        return ("event", _text(source.id))
    return ("sec_filing", _text(source.ticker), _accession(source.accession_number))


def validate_sources(cited: Sequence[Source], allowed: Sequence[Source]) -> tuple[list[Source], int]:
    """(kept, dropped_count): each cited source that matches an allowed one, once, in citing order."""
    by_key = {canonical_key(s): s for s in allowed}
    kept: list[Source] = []
    seen: set[tuple[str, ...]] = set()
    dropped = 0
    for source in cited:
        key = canonical_key(source)
        if key not in by_key:
            dropped += 1
        elif key not in seen:  # a repeated citation is not fabricated: kept once, not counted
            seen.add(key)
            kept.append(by_key[key])
    return kept, dropped


def resolve_citations(
    raw: Sequence[str | Mapping[str, Any]], allowed: Sequence[CitableSource]
) -> tuple[list[Source], int]:
    """A model's citations -> (kept, dropped_count).

    A string must be one of the ids listed to the expert, or the pk / accession number of an
    allowed source (what a tool showed it); an object must be a valid source that matches an
    allowed one. Unknown ids and malformed objects are dropped and counted.
    """
    by_id: dict[str, Source] = {}
    for c in allowed:
        by_id.setdefault(_text(c.id), c.source)
        if c.source.type == "article":
            by_id.setdefault(_text(c.source.pk), c.source)
        elif c.source.type == "sec_filing":
            by_id.setdefault(_accession(c.source.accession_number), c.source)
    candidates: list[Source] = []
    dropped = 0
    for item in raw:
        if isinstance(item, str):
            digits = re.sub(r"\D", "", item)  # an accession number, with or without dashes
            source = by_id.get(_text(item)) or (by_id.get(digits) if len(digits) >= 10 else None)
            if source is None:
                dropped += 1
            else:
                candidates.append(source)
            continue
        try:
            candidates.append(_SOURCE.validate_python(dict(item)))
        except (ValidationError, TypeError, ValueError):
            dropped += 1
    kept, unmatched = validate_sources(candidates, [c.source for c in allowed])
    return kept, dropped + unmatched


def clip(text: str, limit: int) -> str:
    """A title on one line, shortened with an ellipsis for a prompt's list of sources."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit].rstrip() + "…"


def render_sources(allowed: Sequence[CitableSource]) -> str:
    """The sources an agent may cite, one line each under its short id (N1, C1, F1, E1)."""
    lines = []
    for c in allowed:
        s = c.source
        if s.type == "article":
            lines.append(f"{c.id} 新闻《{clip(s.title, 60)}》")
        elif s.type == "chart":
            lines.append(f"{c.id} 日线图 {s.ticker} {s.start_date}~{s.end_date}")
        elif s.type == "sec_filing":
            lines.append(f"{c.id} 公告 {s.form} {s.filed_date}")
        else:
            lines.append(f"{c.id} 事件 {s.date} {clip(s.title, 60)}")
    return "\n".join(lines) or "（无，sources 填 []）"
