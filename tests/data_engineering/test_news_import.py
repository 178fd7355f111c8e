"""News CSV import: Nasdaq/FNSPID and generic layouts, times to naive UTC, debris, duplicates,
all-or-nothing rejection, idempotent reruns and the `data import news-csv` command."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.domain.exceptions import ImportValidationError
from stockdesk.data_engineering.infrastructure.importers.news_csv import (
    parse_iso_utc,
    parse_nasdaq_date,
    read_news_csv,
    source_of,
    summary_of,
    title_from_url,
)
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

FIXTURES = Path(__file__).parent / "fixtures" / "news"
NASDAQ = FIXTURES / "nasdaq_XMPL_news.csv"  # BOM, CRLF rows, every Nasdaq date form, debris, a dup URL
GENERIC = FIXTURES / "generic_600001_news.csv"
ARTICLES = "https://www.nasdaq.com/articles/"
TRENDS = ARTICLES + "example-earnings-trends-highlights%3A-xmpl-acme-widgets"


@pytest.fixture
def repository(database: Database) -> SqlMarketDataRepository:
    return SqlMarketDataRepository(database)


def import_news(path: Path, symbol: str, repository: SqlMarketDataRepository) -> int:
    """Import one file; returns the news rows that were new."""
    parsed = read_news_csv(path, symbol)
    result = MarketDataImportService(repository).import_frames(parsed.group.source, parsed.group.frames)
    return result.new_rows.get("news", 0)


def stored(repository: SqlMarketDataRepository) -> dict[str, dict]:
    frame = pd.concat(list(repository.table_frames("news")))
    frame = frame.astype(object).where(frame.notna(), None)
    return {row["url"]: row for row in frame.to_dict("records")}


# ---- Nasdaq / FNSPID ------------------------------------------------------------------------------
def test_nasdaq_dates_are_stored_as_naive_utc(repository: SqlMarketDataRepository) -> None:
    assert import_news(NASDAQ, "xmpl", repository) == 6
    news = stored(repository)
    published = {url.removeprefix(ARTICLES): row["published_at"] for url, row in news.items()}
    assert published == {
        "example-earnings-trends-highlights%3A-xmpl-acme-widgets": datetime(2024, 1, 25, 8, 33),  # 03:33 EST
        "could-example-widgets-buy-a-rival-in-2024": datetime(2024, 2, 3, 18, 7),  # 01:07 pm EST
        "after-earnings-whats-next-for-widget-makers": datetime(2024, 2, 9, 14, 30),  # 9:30AM EST
        "3-widget-stocks-to-buy-for-a-%24100-portfolio": datetime(2024, 1, 5, 5, 0),  # day only: NY midnight
        "wall-st-edges-higher-ahead-of-fed-meeting": None,  # 9 DAYS AGO: undated
        "example-widgets-opens-a-new-plant": datetime(2024, 7, 1, 13, 15),  # 09:15 am EDT
    }
    assert {row["symbol"] for row in news.values()} == {"XMPL"}
    assert {row["source"] for row in news.values()} == {"nasdaq.com"}


def test_nasdaq_titles_summaries_and_bodies(repository: SqlMarketDataRepository) -> None:
    import_news(NASDAQ, "XMPL", repository)
    news = stored(repository)
    trends = news[TRENDS]
    assert trends["title"] == "Example earnings trends highlights: xmpl acme widgets"
    assert news[ARTICLES + "3-widget-stocks-to-buy-for-a-%24100-portfolio"]["title"] == (
        "3 widget stocks to buy for a $100 portfolio"
    )
    assert trends["body"].startswith("For Immediate Release\nChicago, IL – January 25, 2024")
    assert "\r" not in trends["body"] and len(trends["body"]) > 500
    summary = trends["summary"]
    assert summary.startswith("For Immediate Release Chicago, IL") and summary.endswith("…")
    assert 250 <= len(summary) <= 301 and "\n" not in summary
    assert trends["body"].replace("\n", " ").startswith(summary.removesuffix("…"))  # cut at a word
    headline = news[ARTICLES + "wall-st-edges-higher-ahead-of-fed-meeting"]
    assert headline["body"] is None and headline["summary"] is None  # Text "0": nothing was scraped


def test_nasdaq_counts_debris_undated_rows_and_duplicates() -> None:
    parsed = read_news_csv(NASDAQ, "XMPL")
    stats = parsed.stats
    assert (stats.layout, stats.rows_read, len(parsed.news)) == ("nasdaq", 9, 6)
    assert stats.skipped_no_content == 2  # Date = Text = Mark = "2", and "0"
    assert stats.duplicates_collapsed == 1 and stats.undated == 1 and stats.without_text == 2
    kept = parsed.news[parsed.news["url"] == TRENDS].iloc[0]
    assert kept["published_at"] == pd.Timestamp("2024-01-25 08:33")  # the row with the text, not "JAN 25"
    assert len(kept["body"]) > 500
    assert parsed.group.frames["securities"].to_dict("records") == [
        {"symbol": "XMPL", "market": "US", "currency": "USD"}
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("January 25, 2024 — 03:33 am EST", datetime(2024, 1, 25, 8, 33)),
        ("February 03, 2024 — 12:07 pm EST", datetime(2024, 2, 3, 17, 7)),
        ("February 03, 2024 — 12:07 am EST", datetime(2024, 2, 3, 5, 7)),
        ("JAN 25, 2024", datetime(2024, 1, 25, 5, 0)),
        ("JAN 5, 2024", datetime(2024, 1, 5, 5, 0)),
        ("JUL 5, 2024", datetime(2024, 7, 5, 4, 0)),  # summer: New York midnight is 04:00 UTC
        ("FEB 9, 2024 9:30AM EST", datetime(2024, 2, 9, 14, 30)),
        ("FEB 9, 2024 9:30AM ET", datetime(2024, 2, 9, 14, 30)),
        ("9 DAYS AGO", None),
        ("1 HOUR AGO", None),
    ],
)
def test_parse_nasdaq_date(text: str, expected: datetime | None) -> None:
    assert parse_nasdaq_date(text) == expected


@pytest.mark.parametrize(
    "text", ["Someday 2024", "FEB 30, 2024", "JAN 5, 2024 13:30PM EST", "JAN 5, 2024 9:30AM PST", "7", ""]
)
def test_parse_nasdaq_date_rejects_other_forms(text: str) -> None:
    with pytest.raises(ValueError):
        parse_nasdaq_date(text)


def test_title_summary_and_source_helpers() -> None:
    assert title_from_url(
        "https://www.nasdaq.com/articles/zacks-earnings-trends-highlights%3A-amazon-alphabet"
    ) == ("Zacks earnings trends highlights: amazon alphabet")
    assert title_from_url("https://example.com/news/covid%2D19-hits-sales.html") == "Covid-19 hits sales"
    assert summary_of("short  text\nhere") == "short text here"
    words = " ".join(["word"] * 100)  # 499 characters
    assert summary_of(words) == " ".join(["word"] * 60) + "…"  # 299 characters, cut between words
    assert source_of("https://www.nasdaq.com/articles/x") == "nasdaq.com"
    assert source_of("https://finance.eastmoney.com/a/1.html") == "finance.eastmoney.com"


def test_a_bad_date_rejects_the_whole_file_with_row_and_line(
    repository: SqlMarketDataRepository, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_bytes(NASDAQ.read_bytes().replace(b"FEB 9, 2024 9:30AM EST", b"Valentine's Day"))
    with pytest.raises(ImportValidationError) as caught:
        read_news_csv(bad, "XMPL")
    [problem] = caught.value.problems
    # data row 3 starts on file line 9: the header, then row 1's text spans 5 lines and row 2's 2
    assert problem.row == 3 and "(line 9)" in problem.reason and "Valentine's Day" in problem.reason
    assert "row 3" in caught.value.message and "nothing imported" in caught.value.message
    assert repository.counts()["news"] == 0 and repository.counts()["securities"] == 0


def test_a_rerun_imports_nothing_new(repository: SqlMarketDataRepository) -> None:
    assert import_news(NASDAQ, "XMPL", repository) == 6
    first = stored(repository)
    assert import_news(NASDAQ, "XMPL", repository) == 0
    assert stored(repository) == first
    assert repository.counts()["news"] == 6


def test_point_in_time_reads_skip_undated_news(repository: SqlMarketDataRepository) -> None:
    import_news(NASDAQ, "XMPL", repository)
    titles = [n.title for n in repository.get_news("XMPL", date(2024, 2, 3))]
    assert titles == [  # newest first; nothing after Feb 3, nothing undated
        "Could example widgets buy a rival in 2024",
        "Example earnings trends highlights: xmpl acme widgets",
        "3 widget stocks to buy for a $100 portfolio",
    ]


# ---- generic layout --------------------------------------------------------------------------------
def test_generic_layout_converts_offsets_to_utc(repository: SqlMarketDataRepository) -> None:
    parsed = read_news_csv(GENERIC, "600001")
    assert (parsed.stats.layout, parsed.stats.rows_read, parsed.stats.undated) == ("generic", 4, 1)
    assert import_news(GENERIC, "600001", repository) == 4
    news = stored(repository)
    annual = news["https://finance.example.cn/a/20240301.html"]
    assert annual["symbol"] == "600001.SH" and annual["title"] == "示例银行发布2023年年报"
    assert annual["published_at"] == datetime(2024, 3, 1, 1, 30)  # 09:30 Beijing
    assert annual["source"] == "示例财经" and annual["summary"] == "净利润同比增长5.2%。"
    dividend = news["https://news.example.com/bank-dividend"]
    assert dividend["published_at"] == datetime(2024, 3, 2, 15, 0)  # Z
    assert dividend["summary"] == "Example Bank raised its dividend by 10% on Saturday."  # from the body
    assert dividend["source"] == "news.example.com"  # from the URL
    cfo = news["https://news.example.com/bank-cfo"]
    assert cfo["published_at"] == datetime(2024, 3, 3, 10, 0) and cfo["body"] is None  # naive = UTC
    assert news["https://news.example.com/bank-index"]["published_at"] is None


def test_parse_iso_utc() -> None:
    assert parse_iso_utc("2024-03-01T09:30:00-05:00") == datetime(2024, 3, 1, 14, 30)
    assert parse_iso_utc("2024-03-01") == datetime(2024, 3, 1)
    assert parse_iso_utc("") is None
    with pytest.raises(ValueError):
        parse_iso_utc("March 1st")


def test_generic_blank_title_or_url_rejects_the_file(
    repository: SqlMarketDataRepository, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.csv"
    lines = GENERIC.read_text(encoding="utf-8").splitlines()
    lines[2] = ",no title,https://news.example.com/x,2024-03-02T15:00:00Z,,"  # data row 2
    lines[4] = "No URL,summary,,2024-03-04,,"  # data row 4
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ImportValidationError) as caught:
        read_news_csv(bad, "600001.SH")
    assert [(p.row, p.reason) for p in caught.value.problems] == [
        (2, "(line 3) title is blank"),
        (4, "(line 5) url is blank"),
    ]
    assert repository.counts()["news"] == 0


def test_unknown_header_is_rejected(tmp_path: Path) -> None:
    other = tmp_path / "other.csv"
    other.write_text("headline,link\nA,https://example.com/a\n", encoding="utf-8")
    with pytest.raises(ImportValidationError, match="unknown news layout"):
        read_news_csv(other, "AAPL")


# ---- the command -----------------------------------------------------------------------------------


def test_cli_prints_one_fact_per_line_and_a_rerun_adds_nothing(cli_app: typer.Typer) -> None:
    runner = CliRunner()
    args = ["data", "import", "news-csv", str(NASDAQ), "--symbol", "xmpl"]
    first = runner.invoke(cli_app, args)
    assert first.exit_code == 0, first.output
    lines = first.stdout.splitlines()
    assert lines[0] == "news nasdaq_XMPL_news.csv (nasdaq layout) for XMPL"
    assert lines[1:] == [
        "rows read: 9",
        "imported: 6",
        "already stored: 0",
        "undated: 1",
        "skipped (no content): 2",
        "duplicates collapsed: 1",
        "headlines without text: 2",
    ]
    again = runner.invoke(cli_app, [*args, "--json"])
    assert again.exit_code == 0, again.output
    facts = json.loads(again.stdout)
    assert (facts["rows_read"], facts["imported"], facts["already_stored"]) == (9, 0, 6)
    assert facts["skipped_no_content"] == 2 and facts["duplicates_collapsed"] == 1


def test_cli_rejects_a_bad_file_and_writes_nothing(
    cli_app: typer.Typer, tmp_path: Path, database: Database
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_bytes(NASDAQ.read_bytes().replace(b"JAN 5, 2024", b"JAN 5, 2024 at noon"))
    result = CliRunner().invoke(cli_app, ["data", "import", "news-csv", str(bad), "--symbol", "XMPL"])
    assert result.exit_code != 0
    assert isinstance(result.exception, ImportValidationError)  # `main` prints it as one line, exit 2
    assert result.exception.problems[0].row == 5
    assert SqlMarketDataRepository(database).counts()["news"] == 0


def test_cli_requires_a_symbol(cli_app: typer.Typer) -> None:
    result = CliRunner().invoke(cli_app, ["data", "import", "news-csv", str(NASDAQ)])
    assert result.exit_code == 2 and "--symbol" in result.output
