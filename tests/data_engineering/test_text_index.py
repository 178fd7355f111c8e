"""The local full-text index: Chinese and English matching, point in time, freshness, upkeep."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.data_engineering.infrastructure.persistence.text_index import fts5_match, query_terms, tsquery
from stockdesk.shared.db import Database

NEWS = [
    (
        "AAPL",
        "2024-02-01 10:00",
        "iPhone sales slump in China",
        "Apple iPhone sales fell 24% in China.",
        "u1",
    ),
    (
        "AAPL",
        "2024-03-05 09:00",
        "iPhone sale record after March",
        "Published after the analysis date.",
        "u2",
    ),
    ("AAPL", "2024-02-20 15:30", "Mac shipments", "Mac shipments rose; no phones here.", "u3"),
    ("AAPL", None, "iPhone rumour, undated", "An undated iPhone story.", "u4"),
    ("600519.SH", "2024-02-10 08:00", "贵州茅台发布2023年年报", "贵州茅台酒股份有限公司营业收入增长。", "u5"),
    ("600519.SH", "2024-01-03 08:00", "白酒行业景气回升", "行业需求回暖。", "u6"),
]


@pytest.fixture()
def repo(database: Database) -> SqlMarketDataRepository:
    repository = SqlMarketDataRepository(database)
    frame = pd.DataFrame(NEWS, columns=["symbol", "published_at", "title", "body", "url"])
    repository.upsert_news(
        frame.assign(published_at=pd.to_datetime(frame["published_at"]), source="example.com")
    )
    return repository


def urls(repo: SqlMarketDataRepository, query: str, **kw) -> list[str]:
    options = {"symbol": None, "start": None, "end": date(2024, 3, 1), "limit": 10, **kw}
    return [hit.url for hit in repo.search_text(query, **options)]


def test_english_words_match_with_stemming(repo: SqlMarketDataRepository) -> None:
    assert urls(repo, "iPhone sales") == ["u1"]  # u2 is later than as-of, u4 undated
    assert urls(repo, "phone") == ["u3"]  # whole words only: 'phones' stems to 'phone'


def test_chinese_words_match_inside_unspaced_text(repo: SqlMarketDataRepository) -> None:
    assert urls(repo, "茅台") == ["u5"]
    assert urls(repo, "营业收入 增长") == ["u5"]
    assert set(urls(repo, "行业 年报")) == {"u5", "u6"}  # any term matches


def test_nothing_after_as_of_and_nothing_undated(repo: SqlMarketDataRepository) -> None:
    assert set(urls(repo, "iPhone", end=date(2024, 3, 10))) == {"u1", "u2"}
    assert "u4" not in urls(repo, "undated iPhone", end=date(2030, 1, 1))
    assert urls(repo, "iPhone", end=date(2024, 1, 31)) == []


def test_the_whole_as_of_day_counts(repo: SqlMarketDataRepository) -> None:
    assert urls(repo, "Mac", end=date(2024, 2, 20)) == ["u3"]  # published 15:30 that day
    assert urls(repo, "Mac", end=date(2024, 2, 19)) == []


def test_freshness_window_and_symbol(repo: SqlMarketDataRepository) -> None:
    assert urls(repo, "白酒 茅台", start=date(2024, 2, 1)) == ["u5"]
    assert urls(repo, "iPhone Mac", symbol="600519.SH") == []


def test_updates_and_reimports_keep_the_index_in_step(repo: SqlMarketDataRepository) -> None:
    frame = pd.DataFrame([NEWS[2]], columns=["symbol", "published_at", "title", "body", "url"])
    changed = frame.assign(
        published_at=pd.to_datetime(frame["published_at"]), title="Vision Pro shipments", body="x"
    )
    repo.upsert_news(changed)
    repo.upsert_news(changed)
    assert urls(repo, "Vision") == ["u3"]
    assert urls(repo, "Mac") == []  # the old words left the index with the old row


def test_query_syntax_never_leaks_into_fts() -> None:
    assert query_terms('"iPhone" AND NEAR(sales) -x * 茅台') == [
        "iphone",
        "and",
        "near",
        "sales",
        "x",
        "茅台",
    ]
    assert fts5_match(["iphone", "茅台"]) == '"iphone" OR "茅 台"'
    assert tsquery(["iphone", "茅台"]) == "(iphone) | (茅 <-> 台)"


def test_operators_in_a_query_are_plain_words(repo: SqlMarketDataRepository) -> None:
    assert urls(repo, 'sales" OR NEAR(x') == ["u1"]
    assert urls(repo, "***") == []


def test_hits_carry_a_snippet_around_the_match(repo: SqlMarketDataRepository) -> None:
    (hit,) = repo.search_text("fell", symbol="AAPL", start=None, end=date(2024, 3, 1), limit=5)
    assert "fell" in hit.snippet and hit.kind == "news" and hit.source == "example.com"
