"""Sync failures are recorded in one line and logged with their traceback (the log keeps the why)."""

from __future__ import annotations

import logging
from datetime import date

import pytest
from sqlalchemy import text

from stockdesk.data_engineering.domain.exceptions import ProviderUnavailableError
from stockdesk.shared.db import Database
from tests.data_engineering.provider_fakes import FixtureAkShare
from tests.data_engineering.test_sync import Desk, akshare, us_desk

SYNC_LOGGER = "stockdesk.data_engineering.application.sync_service"


def sync_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == SYNC_LOGGER]


def test_a_provider_failure_is_logged_with_its_traceback(
    database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    desk = Desk(database, {"CN": [akshare(FixtureAkShare(unreachable=("600009",)))]})
    with caplog.at_level(logging.WARNING, logger=SYNC_LOGGER):
        summary = desk.sync(["600009.SH"])
    assert summary.symbol_status == {"600009.SH": "failed"}  # still recorded, not raised
    logged = sync_records(caplog)
    assert len(logged) == len(summary.failures) == 4  # one per dataset
    for record, failure in zip(logged, summary.failures, strict=True):
        assert record.levelno == logging.WARNING and failure.dataset in record.getMessage()
        assert record.exc_info is not None and isinstance(record.exc_info[1], ProviderUnavailableError)
        assert "Failed to resolve" in str(record.exc_info[1].__cause__)  # the whole chain is kept


def test_a_derived_valuation_failure_is_logged_with_its_traceback(
    database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    database.ensure_schema()
    # the store refuses valuation rows; in this sync only the derived step writes any
    with database.engine.begin() as conn:
        conn.execute(
            text(
                "CREATE TRIGGER refuse BEFORE INSERT ON daily_valuations "
                "BEGIN SELECT RAISE(ABORT, 'valuations are read-only today'); END"
            )
        )
    desk = us_desk(database)
    with caplog.at_level(logging.WARNING, logger=SYNC_LOGGER):
        summary = desk.sync(["EXMP"], start=date(2023, 11, 1), end=date(2024, 2, 8))
    assert [(f.provider, f.dataset) for f in summary.failures] == [("derived", "valuations")]
    logged = sync_records(caplog)
    assert len(logged) == 1 and "derived valuations" in logged[0].getMessage()
    assert logged[0].exc_info is not None and "read-only today" in str(logged[0].exc_info[1])
