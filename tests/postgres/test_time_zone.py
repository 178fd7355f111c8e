"""Timestamps on a PostgreSQL server whose own zone is not UTC (the test server runs in Asia/Shanghai):
every session is in UTC, so aware values come back in UTC and naive ones are taken as UTC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import psycopg
from sqlalchemy import text

from stockdesk.llm_platform.infrastructure.persistence.models import LLMResponseCacheRow
from stockdesk.shared.db import Database
from tests.postgres_server import SUPERUSER, PostgresServer


def test_the_server_zone_is_not_utc_but_every_session_is(
    database: Database, postgres_server: PostgresServer
) -> None:
    with psycopg.connect(dbname="postgres", user=SUPERUSER, host=str(postgres_server.root)) as raw:
        assert raw.execute("SHOW TimeZone").fetchone() == ("Asia/Shanghai",)
    with database.engine.connect() as conn:
        assert conn.execute(text("SHOW TimeZone")).scalar() == "UTC"


def test_aware_values_come_back_in_utc_and_naive_ones_are_utc(database: Database) -> None:
    shanghai = datetime(2024, 6, 28, 15, 0, tzinfo=timezone(timedelta(hours=8)))
    with database.session() as session:
        session.add(LLMResponseCacheRow(key="aware", created_at=shanghai, response={}))
        session.add(LLMResponseCacheRow(key="naive", created_at=datetime(2024, 6, 28, 7, 0), response={}))
    with database.session() as session:
        aware, naive = (session.get(LLMResponseCacheRow, k).created_at for k in ("aware", "naive"))  # type: ignore[union-attr]
    assert aware == naive == datetime(2024, 6, 28, 7, 0, tzinfo=UTC)
    assert aware.utcoffset() == naive.utcoffset() == timedelta(0)
