"""News CSV files of one symbol -> canonical news rows (`frames.NEWS_COLUMNS`).

Time convention of the whole project: `published_at` is stored as naive **UTC**. Sources in other
zones are converted on the way in (Nasdaq's EST/EDT, AkShare's Beijing time, ISO offsets); a value
without a time of day is the start of that day in the source's own zone (New York for Nasdaq), so
it stays on its calendar date. NULL means undated: such rows are kept (they have a title and a
URL) but point-in-time reads, which need a date, never show them.

The layout is told from the header:

- Nasdaq / FNSPID scrape `Date,Url,Text,Mark` (often behind a UTF-8 BOM). Dates come as
  `January 25, 2024 — 03:33 am EST`, `JAN 25, 2024`, `JAN 5, 2024` or `FEB 9, 2024 9:30AM EST`;
  `9 DAYS AGO` is relative to an unknown scrape day, so the row is kept undated. Rows whose Date,
  Text and Mark are the same single digit are scraper debris with nothing in them: skipped and
  counted. A Text that is a lone digit (Mark 0: the article was not scraped) means no text: the row
  is kept as a headline. There is no title column: the title is the URL's last path segment,
  percent-decoded, hyphens as spaces, first letter capitalised. summary = the first ~300
  characters of the text cut at a word, body = the text, source = the URL's host without `www.`.
- Generic `title,summary,url,published_at` with optional `body` and `source`; `published_at` is
  ISO-8601 (with an offset it is converted to UTC, without one it is taken as UTC; blank = undated).

A URL listed twice keeps the row with the most text, then the dated one, then the first.
Anything else that cannot be read (an unknown date form, a blank title or URL, a short row)
rejects the whole file with every problem's data row and file line; nothing is written.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

import pandas as pd

from stockdesk.data_engineering.application.validation import ROW
from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.exceptions import ImportValidationError, RowProblem
from stockdesk.data_engineering.domain.symbols import normalize_symbol
from stockdesk.data_engineering.infrastructure.importers import ImportGroup
from stockdesk.data_engineering.infrastructure.importers.yfinance_csv import bare_security

NASDAQ_HEADER = ["Date", "Url", "Text", "Mark"]
GENERIC_REQUIRED = ["title", "summary", "url", "published_at"]
GENERIC_OPTIONAL = ["body", "source"]
SUMMARY_CHARS = 300
MAX_FIELD_CHARS = 16 * 1024 * 1024  # one article's text; csv's default limit (128 KiB) is too small
NEW_YORK = ZoneInfo("America/New_York")
ZONES = {
    "EST": timezone(timedelta(hours=-5)),
    "EDT": timezone(timedelta(hours=-4)),
    "ET": NEW_YORK,
    "UTC": UTC,
    "GMT": UTC,
}
MONTHS = {
    name: number
    for number, names in enumerate(
        [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
         ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
         ("oct", "october"), ("nov", "november"), ("dec", "december")],
        start=1,
    )
    for name in names
}  # fmt: skip
_ABSOLUTE = re.compile(
    r"^(?P<month>[A-Za-z]+)\.?\s+(?P<day>\d{1,2}),\s*(?P<year>\d{4})"
    r"(?:\s*[—–-]?\s*(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<half>[AaPp][Mm])\s*(?P<zone>[A-Za-z]+)?)?$"
)
_RELATIVE = re.compile(r"^\d+\s+(?:SECOND|MINUTE|HOUR|DAY|WEEK|MONTH|YEAR)S?\s+AGO$", re.IGNORECASE)
_DIGIT = re.compile(r"^\d$")


@dataclass
class NewsCsvStats:
    """Counts for the import report (rows are data rows, the header excluded)."""

    layout: str
    rows_read: int = 0
    undated: int = 0  # kept, published_at NULL
    skipped_no_content: int = 0  # Nasdaq debris rows (Date = Text = Mark = one digit)
    duplicates_collapsed: int = 0  # rows dropped because their URL was listed again
    without_text: int = 0  # kept as headlines: no summary or body


@dataclass
class NewsCsvFile:
    group: ImportGroup
    stats: NewsCsvStats

    @property
    def news(self) -> pd.DataFrame:
        return self.group.frames["news"]


@dataclass
class _Record:
    row: int  # 1-based data row
    line: int  # file line the row starts on (text cells span lines)
    cells: list[str]

    def problem(self, reason: str) -> RowProblem:
        return RowProblem(row=self.row, reason=f"(line {self.line}) {reason}")


def read_news_csv(path: Path, symbol: str) -> NewsCsvFile:
    """Canonical news of one file, for one symbol; raises ImportValidationError listing every problem."""
    symbol = normalize_symbol(symbol)
    header, records = _read(path)
    names = [h.strip() for h in header]
    if names == NASDAQ_HEADER:
        stats = NewsCsvStats(layout="nasdaq")
        rows, problems = _nasdaq_rows(records, stats)
    elif set(GENERIC_REQUIRED) <= {n.lower() for n in names}:
        stats = NewsCsvStats(layout="generic")
        rows, problems = _generic_rows(records, [n.lower() for n in names], stats)
    else:
        reason = (
            f"unknown news layout (header {','.join(names)}); expected {','.join(NASDAQ_HEADER)} or "
            f"{','.join(GENERIC_REQUIRED)}[,{','.join(GENERIC_OPTIONAL)}]"
        )
        raise ImportValidationError(path.name, [RowProblem(row=None, reason=reason)])
    stats.rows_read = len(records)
    if problems:
        raise ImportValidationError(path.name, problems)
    news = _collapse_duplicates(pd.DataFrame(rows, columns=[*F.NEWS_COLUMNS, ROW]), stats)
    news["symbol"] = symbol
    news["published_at"] = pd.to_datetime(news["published_at"])
    stats.undated = int(news["published_at"].isna().sum())
    stats.without_text = int(news["body"].isna().sum())
    frames = {"securities": bare_security(symbol), "news": news}
    return NewsCsvFile(group=ImportGroup(source=f"{path.name} ({symbol})", frames=frames), stats=stats)


def _read(path: Path) -> tuple[list[str], list[_Record]]:
    if not path.is_file():
        raise ImportValidationError(str(path), [RowProblem(row=None, reason="no such file")])
    csv.field_size_limit(max(csv.field_size_limit(), MAX_FIELD_CHARS))
    records: list[_Record] = []
    line = 1
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            line = reader.line_num + 1
            for cells in reader:
                if any(c.strip() for c in cells):
                    records.append(_Record(row=len(records) + 1, line=line, cells=cells))
                line = reader.line_num + 1
    except (UnicodeDecodeError, csv.Error) as exc:
        reason = f"not a readable UTF-8 CSV file near line {line}: {exc}"
        raise ImportValidationError(path.name, [RowProblem(row=None, reason=reason)]) from exc
    if not header:
        raise ImportValidationError(path.name, [RowProblem(row=None, reason="empty file")])
    if not records:
        raise ImportValidationError(path.name, [RowProblem(row=None, reason="no data rows")])
    return header, records


# ---- Nasdaq / FNSPID -------------------------------------------------------------------------------
def _nasdaq_rows(
    records: list[_Record], stats: NewsCsvStats
) -> tuple[list[dict[str, Any]], list[RowProblem]]:
    rows: list[dict[str, Any]] = []
    problems: list[RowProblem] = []
    for record in records:
        if len(record.cells) != len(NASDAQ_HEADER):
            expected = ",".join(NASDAQ_HEADER)
            problems.append(record.problem(f"expected 4 fields ({expected}), got {len(record.cells)}"))
            continue
        day, url, text, mark = (c.strip() for c in record.cells)
        if _DIGIT.match(day) and day == text == mark:
            stats.skipped_no_content += 1
            continue
        if not is_web_url(url):
            problems.append(record.problem(f"Url: not an http(s) URL {url!r}"))
            continue
        try:
            published = parse_nasdaq_date(day)
        except ValueError:
            problems.append(record.problem(f"Date: unparsable date {day!r}"))
            continue
        body = None if _DIGIT.match(text) or not text else text.replace("\r\n", "\n")
        row = {
            "published_at": published,
            "title": title_from_url(url),
            "summary": summary_of(body) if body else None,
            "body": body,
            "url": url,
            "source": source_of(url),
            ROW: record.row,
        }
        rows.append(row)
    return rows, problems


def parse_nasdaq_date(text: str) -> datetime | None:
    """Naive UTC of a Nasdaq date; None for relative ones (`9 DAYS AGO`); ValueError otherwise."""
    text = " ".join(text.split())
    if _RELATIVE.match(text):
        return None
    match = _ABSOLUTE.match(text)
    month = MONTHS.get(match.group("month").lower()) if match else None
    if not match or not month:
        raise ValueError(f"unparsable date {text!r}")
    day = datetime(int(match.group("year")), month, int(match.group("day")))
    if match.group("hour") is None:
        return _to_utc(day.replace(tzinfo=NEW_YORK))
    hour, minute = int(match.group("hour")), int(match.group("minute"))
    if not 1 <= hour <= 12:
        raise ValueError(f"hour {hour} is not on a 12-hour clock")
    hour = hour % 12 + (12 if match.group("half").lower() == "pm" else 0)
    zone = ZONES.get((match.group("zone") or "ET").upper())
    if zone is None:
        raise ValueError(f"unknown time zone {match.group('zone')!r}")
    return _to_utc(day.replace(hour=hour, minute=minute, tzinfo=zone))


def _to_utc(stamp: datetime) -> datetime:
    return stamp.astimezone(UTC).replace(tzinfo=None)


def title_from_url(url: str) -> str:
    """`.../articles/zacks-earnings%3A-amazon-alphabet` -> `Zacks earnings: amazon alphabet`."""
    slug = urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1]
    slug = re.sub(r"\.s?html?$", "", slug, flags=re.IGNORECASE)
    words = " ".join(" ".join(unquote(part) for part in slug.split("-")).split())
    return words[:1].upper() + words[1:] if words else url


def summary_of(text: str, limit: int = SUMMARY_CHARS) -> str:
    """The first ~`limit` characters of the text on one line, cut at a word boundary."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat.rfind(" ", 0, limit + 1)
    head = flat[:cut] if cut > limit // 2 else flat[:limit]
    return head.rstrip(" ,;:—-") + "…"


def source_of(url: str) -> str | None:
    host = (urlsplit(url).hostname or "").lower()
    return host.removeprefix("www.") or None


def is_web_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in {"http", "https"} and bool(parts.hostname)


# ---- generic ---------------------------------------------------------------------------------------
def _generic_rows(
    records: list[_Record], names: list[str], stats: NewsCsvStats
) -> tuple[list[dict[str, Any]], list[RowProblem]]:
    position = {name: i for i, name in enumerate(names)}
    rows: list[dict[str, Any]] = []
    problems: list[RowProblem] = []
    for record in records:
        if len(record.cells) != len(names):
            problems.append(record.problem(f"expected {len(names)} fields, got {len(record.cells)}"))
            continue

        def cell(name: str, record: _Record = record) -> str:
            return record.cells[position[name]].strip() if name in position else ""

        found = [f"{name} is blank" for name in ("title", "url") if not cell(name)]
        if cell("url") and not is_web_url(cell("url")):
            found.append(f"url: not an http(s) URL {cell('url')!r}")
        try:
            published = parse_iso_utc(cell("published_at"))
        except ValueError:
            found.append(f"published_at: not an ISO-8601 time {cell('published_at')!r}")
        if found:
            problems.extend(record.problem(reason) for reason in found)
            continue
        body = record.cells[position["body"]].strip().replace("\r\n", "\n") if "body" in position else ""
        summary = " ".join(cell("summary").split()) or (summary_of(body) if body else "")
        rows.append(
            {
                "published_at": published,
                "title": " ".join(cell("title").split()),
                "summary": summary or None,
                "body": body or None,
                "url": cell("url"),
                "source": cell("source") or source_of(cell("url")),
                ROW: record.row,
            }
        )
    return rows, problems


def parse_iso_utc(text: str) -> datetime | None:
    """Naive UTC of an ISO-8601 time (`Z`/offsets converted, none = UTC); None when blank."""
    if not text:
        return None
    stamp = datetime.fromisoformat(text)
    return _to_utc(stamp) if stamp.tzinfo else stamp


# ---- duplicates ------------------------------------------------------------------------------------
def _collapse_duplicates(news: pd.DataFrame, stats: NewsCsvStats) -> pd.DataFrame:
    """One row per URL: the most text, then dated, then the first listed."""
    ranked = news.assign(
        _chars=news["body"].fillna("").str.len(), _dated=news["published_at"].notna().astype(int)
    ).sort_values(["_chars", "_dated", ROW], ascending=[False, False, True], kind="stable")
    kept = ranked.drop_duplicates("url", keep="first").sort_values(ROW)
    stats.duplicates_collapsed = len(news) - len(kept)
    return kept.drop(columns=["_chars", "_dated"]).reset_index(drop=True)
