"""The as-of range rule on a real SQLite store: before the first bar, more than 5 trading days after
the newest (the store's market calendar, then Monday-Friday), no bars at all; no date = the newest."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from stockdesk.data_engineering.application import AsOfOutOfRangeError, CheckAsOfUseCase
from stockdesk.data_engineering.application.as_of_range import trading_days_after, weekdays_between
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

LAST = date(2024, 6, 28)  # a Friday


def store(
    database: Database, bars: dict[str, pd.DatetimeIndex], *, bare: tuple[str, ...] = ()
) -> CheckAsOfUseCase:
    """Securities (CN) with the given bar days; `bare` symbols have a security row and no bar."""
    repository = SqlMarketDataRepository(database)
    securities = [{"symbol": s, "name": s, "market": "CN", "exchange": s[-2:]} for s in [*bars, *bare]]
    frames = {
        "securities": pd.DataFrame(securities),
        "bars": pd.concat(
            [pd.DataFrame({"symbol": s, "trade_date": days, "close": 10.0}) for s, days in bars.items()]
        ),
    }
    MarketDataImportService(repository).import_frames("test", frames)
    return CheckAsOfUseCase(repository)


def refusal(check: CheckAsOfUseCase, symbols: list[str], day: date | None) -> AsOfOutOfRangeError:
    with pytest.raises(AsOfOutOfRangeError) as caught:
        check.execute(symbols, day)
    assert caught.value.code == "AS_OF_OUT_OF_RANGE" and caught.value.http_status == 400
    return caught.value


def test_weekdays_and_the_market_calendar_count_trading_days() -> None:
    assert weekdays_between(LAST, date(2024, 7, 5)) == 5 and weekdays_between(LAST, date(2024, 7, 8)) == 6
    assert trading_days_after(LAST, date(2024, 7, 8), []) == 6  # no calendar beyond: weekdays
    # a holiday week the market did not trade: only its stored day counts
    assert trading_days_after(LAST, date(2024, 7, 8), [date(2024, 7, 8)]) == 1


def test_dates_inside_or_just_after_the_stored_bars_pass_and_no_date_is_the_newest(
    database: Database,
) -> None:
    check = store(database, {"600001.SH": pd.bdate_range(end=LAST, periods=30)})
    first = pd.bdate_range(end=LAST, periods=30)[0].date()
    assert check.execute(["600001.SH"], first)["600001.SH"].as_of == first
    assert check.execute(["600001.SH"], date(2024, 7, 5))["600001.SH"].as_of == date(2024, 7, 5)  # 5 days
    latest = check.execute(["600001.SH"], None)["600001.SH"]
    assert latest.as_of == LAST and latest.clamped and (latest.first, latest.last) == (first, LAST)


def test_after_before_and_no_bars_are_one_line_naming_the_stored_range(database: Database) -> None:
    check = store(database, {"600001.SH": pd.bdate_range("2023-01-03", LAST)}, bare=("600002.SH",))
    after = refusal(check, ["600001.SH"], date(2024, 7, 8))  # the 6th trading day after
    assert after.message == (
        "600001.SH: as-of 2024-07-08 is after the stored bars (2023-01-03..2024-06-28); "
        "sync or choose a date in that range"
    )
    assert after.details == {
        "symbol": "600001.SH", "as_of": "2024-07-08", "first": "2023-01-03", "last": "2024-06-28",
        "side": "after",
    }  # fmt: skip
    before = refusal(check, ["600001.SH"], date(1990, 1, 1))
    assert before.message == (
        "600001.SH: as-of 1990-01-01 is before the stored bars (2023-01-03..2024-06-28); "
        "choose a date in that range"
    )
    none = refusal(check, ["600002.SH"], None)
    assert none.message == "600002.SH: no daily bars are stored; sync it first"


def test_a_stale_symbol_is_refused_on_the_markets_own_calendar(database: Database) -> None:
    days = pd.bdate_range(end=LAST, periods=40)
    check = store(database, {"600001.SH": days, "600002.SH": days[:-10]})  # 600002 stopped 10 days ago
    stale_last = days[-11].date()
    assert check.execute(["600002.SH"], days[-6].date())["600002.SH"].as_of == days[-6].date()  # 5 days
    many = refusal(check, ["600001.SH", "600002.SH"], LAST)
    assert many.message.startswith("600002.SH: as-of 2024-06-28 is after the stored bars")
    assert f"..{stale_last.isoformat()})" in many.message and "600001.SH" not in many.message
