"""Store coverage (the data page): date ranges per symbol and dataset, sync marks, and missing trading days
told from the other stored symbols of the market, over a real SQLite store."""

from __future__ import annotations

from datetime import date, datetime

import pandas as pd

from stockdesk.data_engineering.application.coverage import Gap, long_gaps, missing_trading_days
from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database

DAYS = pd.bdate_range("2024-01-01", "2024-01-31")  # 23 weekdays


def bars(symbol: str, days: pd.DatetimeIndex) -> pd.DataFrame:
    return pd.DataFrame({"symbol": symbol, "trade_date": days, "open": 10.0, "high": 11.0, "low": 9.0,
                         "close": 10.0, "volume": 1e5})  # fmt: skip


def security(symbol: str, name: str, market: str) -> dict[str, object]:
    return {"symbol": symbol, "name": name, "market": market, "currency": "CNY" if market == "CN" else "USD"}


def store(settings: Settings, database: Database) -> DataEngineeringContainer:
    """Two A-shares (the second misses 2024-01-10 and 2024-01-17), one US stock alone in its market."""
    data = DataEngineeringContainer(settings, database)
    holes = DAYS.drop([pd.Timestamp("2024-01-10"), pd.Timestamp("2024-01-17")])
    securities = pd.DataFrame(
        [
            security("600001.SH", "示例银行", "CN"),
            security("000002.SZ", "示例地产", "CN"),
            security("ACME", "Acme", "US"),
        ]
    )
    news = pd.DataFrame(
        [{"symbol": "ACME", "published_at": pd.Timestamp("2024-02-03 14:00"), "title": "Acme grows",
          "url": "https://example.com/acme"}]
    )  # fmt: skip
    data.import_service.import_frames(
        "test",
        {"securities": securities, "bars": pd.concat([bars("600001.SH", DAYS), bars("000002.SZ", holes),
                                                       bars("ACME", DAYS[:5])]), "news": news},
    )  # fmt: skip
    data.sync_state.mark_done("600001.SH", "bars", date(2024, 1, 31))
    data.sync_state.mark_done("600001.SH", "security", date(2024, 2, 5))
    data.sync_state.record_failure("run-1", "akshare", "000002.SZ", "bars", "offline")
    return data


def test_each_symbol_has_its_ranges_sync_marks_and_missing_days(
    settings: Settings, database: Database
) -> None:
    rows = {row.symbol: row for row in store(settings, database).coverage.execute()}
    assert list(rows) == ["000002.SZ", "600001.SH", "ACME"]
    full, holed, alone = rows["600001.SH"], rows["000002.SZ"], rows["ACME"]
    assert (full.datasets["bars"].rows, full.datasets["bars"].first, full.datasets["bars"].last) == (
        23, date(2024, 1, 1), date(2024, 1, 31)
    )  # fmt: skip
    assert holed.datasets["bars"].rows == 21 and holed.missing_days == 2 and full.missing_days == 0
    assert alone.missing_days is None  # no other US symbol tells its trading days: unknown, not 0
    assert alone.datasets["news"].first == date(2024, 2, 3) and "valuations" not in alone.datasets
    assert full.synced_through == date(2024, 2, 5) and full.last_sync_failure is None
    assert holed.synced_through is None and isinstance(holed.last_sync_failure, datetime)
    assert (full.name, full.market) == ("示例银行", "CN")


def test_each_dataset_has_its_symbols_rows_and_dates_over_the_whole_store(
    settings: Settings, database: Database
) -> None:
    """`stockdesk doctor`'s data ranges: only the datasets holding rows, in the coverage order."""
    totals = store(settings, database).coverage.datasets()
    assert [t.dataset for t in totals] == ["bars", "news"]
    bars_total, news_total = totals
    assert (bars_total.symbols, bars_total.rows) == (3, 23 + 21 + 5)
    assert (bars_total.first, bars_total.last) == (date(2024, 1, 1), date(2024, 1, 31))
    assert (news_total.symbols, news_total.rows, news_total.first) == (1, 1, date(2024, 2, 3))


def test_an_empty_store_has_no_dataset(settings: Settings, database: Database) -> None:
    assert DataEngineeringContainer(settings, database).coverage.datasets() == []


def test_the_filter_matches_symbol_or_name_and_market(settings: Settings, database: Database) -> None:
    coverage = store(settings, database).coverage
    assert [r.symbol for r in coverage.execute("银行")] == ["600001.SH"]
    assert [r.symbol for r in coverage.execute("sz")] == ["000002.SZ"]
    assert [r.symbol for r in coverage.execute(market="us")] == ["ACME"]
    assert coverage.execute("nothing like it") == []


def test_missing_dates_are_the_market_days_between_first_and_last_bar(
    settings: Settings, database: Database
) -> None:
    coverage = store(settings, database).coverage
    assert coverage.missing_dates("000002.SZ") == [date(2024, 1, 10), date(2024, 1, 17)]
    assert coverage.missing_dates("600001.SH") == []
    assert coverage.missing_dates("ACME") is None
    assert coverage.one("acme") is not None and coverage.one("NOPE") is None


def test_gaps_count_only_days_inside_the_symbols_own_range() -> None:
    """A symbol listed later is not short of the days before its first bar (or after its last)."""
    early = bars("600001.SH", DAYS)
    late = bars("600002.SH", DAYS[10:]).drop(index=[5])  # one hole inside its own range
    gaps = missing_trading_days(pd.concat([early, late])).set_index("symbol")
    assert gaps.loc["600001.SH", "missing_days"] == 0
    assert gaps.loc["600002.SH", "missing_days"] == 1
    assert (gaps["reference_symbols"] == 2).all()
    assert missing_trading_days(pd.DataFrame(columns=["symbol", "trade_date"])).empty


def test_runs_of_more_than_ten_missing_trading_days_are_listed_with_their_dates() -> None:
    """A count of missing days hides a hole: the runs longer than ten trading days are given with
    their first and last day; shorter runs (a suspension of a few days) are not."""
    full = bars("600001.SH", DAYS)
    holed = bars("600002.SH", DAYS)
    kept = [i for i in range(len(DAYS)) if not (5 <= i <= 16 or 18 <= i <= 20)]  # 12 days, then 3
    gaps = long_gaps(pd.concat([full, holed.iloc[kept]]), "600002.SH")
    assert gaps == [Gap(first=DAYS[5].date(), last=DAYS[16].date(), days=12)]
    assert long_gaps(pd.concat([full, holed.iloc[kept]]), "600002.SH", longer_than=2)[1].days == 3
    assert long_gaps(pd.concat([full, holed]), "600002.SH") == []
    assert long_gaps(holed, "600002.SH") == []  # no other symbol of its market: days cannot be told
