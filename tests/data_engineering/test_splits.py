"""Split-adjusted per-share figures, point in time (domain/splits.py).

The SEC fixture (fixtures/sec_split/README.md) has a 10-for-1 split on 2024-06-10 between two
filings; the expected figures there are worked out by hand. The price data is written here in
Yahoo's form (the whole history restated on today's shares, the split in `Stock Splits`), with a
traded close of 132.00 before the split and 13.20 after it.
"""

from __future__ import annotations

import copy
from datetime import date
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from stockdesk.data_engineering.application.derived_valuations import dividend_ttm
from stockdesk.data_engineering.application.sync_service import SyncService
from stockdesk.data_engineering.application.use_cases import (
    GetDailyBarsUseCase,
    GetFinanceForTickerUseCase,
    GetMarketFramesUseCase,
    GetValuationDailiesForTickerUseCase,
)
from stockdesk.data_engineering.domain.splits import events, share_factor
from stockdesk.data_engineering.infrastructure.importers.sec_facts import split_events
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.data_engineering.infrastructure.persistence.sync_state import SqlSyncStateRepository
from stockdesk.data_engineering.infrastructure.providers.yfinance_provider import YFinanceProvider
from stockdesk.shared.db import Database
from stockdesk.shared.finance import ttm
from tests.data_engineering.provider_fakes import FAST, fast_limiter, no_sleep
from tests.data_engineering.split_support import (
    AFTER,
    BEFORE,
    FACTS,
    RESTATED,
    SPLIT_DAY,
    SYMBOL,
    load,
    yahoo_csv,
)


@pytest.fixture
def repository(database: Database) -> SqlMarketDataRepository:
    return SqlMarketDataRepository(database)


def eps_ttm(repository: SqlMarketDataRepository, as_of: date) -> float:
    """EPS TTM from the reports the use case gives as of the day (the snapshot's rule, shared/finance)."""
    reports = GetFinanceForTickerUseCase(repository).execute(SYMBOL, as_of=as_of)
    frame = pd.DataFrame([r.model_dump() for r in reports]).sort_values("end_date")
    frame["end_date"] = pd.to_datetime(frame["end_date"])
    return float(ttm(frame, "eps").iloc[-1])


def valuation(repository: SqlMarketDataRepository, day: date) -> dict[str, Any]:
    rows = GetValuationDailiesForTickerUseCase(repository).execute(SYMBOL, as_of=day, start=day)
    assert len(rows) == 1 and rows[0].trade_date == day
    return rows[0].model_dump()


def test_the_filings_split_tag_is_an_event_confirmed_by_the_restated_eps() -> None:
    found = split_events(FACTS, SYMBOL)
    assert found.to_dict("records") == [
        {"symbol": SYMBOL, "ex_date": pd.Timestamp("2024-06-30"), "ratio": 10.0,
         "known_date": pd.Timestamp("2024-07-25"), "source": "filings"}
    ]  # fmt: skip


def test_a_reverse_split_is_told_by_the_restatements_and_an_unconfirmed_tag_is_left_out() -> None:
    reverse = copy.deepcopy(FACTS)
    for fact in reverse["facts"]["us-gaap"]["EarningsPerShareDiluted"]["units"]["USD/shares"]:
        if fact["filed"] == "2024-07-25":
            fact["val"] = round(fact["val"] * 100, 2)  # 1-for-10: per-share figures x10, still tagged 10
    assert split_events(reverse, SYMBOL)["ratio"].tolist() == [0.1]
    unconfirmed = copy.deepcopy(FACTS)
    for fact in unconfirmed["facts"]["us-gaap"]["EarningsPerShareDiluted"]["units"]["USD/shares"]:
        if fact["filed"] == "2024-07-25":
            fact["val"] = round(fact["val"] * 10, 2)  # no restatement across the tagged date
    assert split_events(unconfirmed, SYMBOL).empty


def test_eps_ttm_is_on_the_share_basis_of_the_as_of_date(
    repository: SqlMarketDataRepository, tmp_path: Path
) -> None:
    load(repository, prices=yahoo_csv(tmp_path / "TENX.csv", {SPLIT_DAY: 10.0}))
    assert eps_ttm(repository, BEFORE) == pytest.approx(3.00 + 10.00 - 2.00)  # pre-split basis
    assert eps_ttm(repository, AFTER) == pytest.approx((3.00 + 10.00 - 2.00) / 10)  # same reports, new basis
    assert eps_ttm(repository, RESTATED) == pytest.approx(0.65 + 10.00 / 10 - 0.45)
    finance = GetFinanceForTickerUseCase(repository)
    q1 = {d: finance.execute(SYMBOL, as_of=d)[0] for d in (BEFORE, AFTER)}
    assert (q1[BEFORE].eps, q1[BEFORE].bps, q1[BEFORE].total_shares) == pytest.approx((3.0, 53.0, 100e6))
    assert (q1[AFTER].eps, q1[AFTER].bps, q1[AFTER].total_shares) == pytest.approx((0.3, 5.3, 1000e6))
    assert q1[AFTER].roe == q1[BEFORE].roe and q1[AFTER].net_profit == 300e6  # amounts and ratios untouched
    # the stored daily valuations divide that day's traded close by figures on that day's basis
    for day, pe, pb in ((BEFORE, 132.0 / 11.0, 132.0 / 53.0), (AFTER, 13.2 / 1.1, 13.2 / 5.3)):
        row = valuation(repository, day)
        assert (row["pe_ttm"], row["pb"], row["total_mv"]) == pytest.approx((pe, pb, 132.0 * 100e6))
    last = valuation(repository, RESTATED)
    assert (last["close"], last["pe_ttm"], last["pb"]) == pytest.approx((13.2, 13.2 / 1.2, 13.2 / 5.65))


def test_a_report_restated_after_the_split_is_not_adjusted_twice(
    repository: SqlMarketDataRepository, tmp_path: Path
) -> None:
    load(repository, prices=yahoo_csv(tmp_path / "TENX.csv", {SPLIT_DAY: 10.0}))
    reports = {r.end_date: r for r in GetFinanceForTickerUseCase(repository).execute(SYMBOL, as_of=RESTATED)}
    h1_2023 = reports[date(2023, 6, 30)]
    assert h1_2023.ann_date == date(2024, 7, 25) and h1_2023.eps == 0.45  # as restated, not 0.045
    # its share count is carried from the 2023 10-Q (old basis): that one is put on the new basis
    assert h1_2023.extra["split_basis"] == {"total_shares": "2023-07-27"}
    assert (h1_2023.total_shares, h1_2023.bps) == pytest.approx((1000e6, 4450e6 / 1000e6))
    assert reports[date(2023, 12, 31)].eps == pytest.approx(1.0)  # the 10-K of 2024-02-15: 10.00 / 10


def test_nothing_after_the_as_of_date_changes_its_figures(
    repository: SqlMarketDataRepository, database: Database, tmp_path: Path
) -> None:
    load(repository, prices=yahoo_csv(tmp_path / "TENX.csv", {SPLIT_DAY: 10.0}))
    reports = GetFinanceForTickerUseCase(repository).execute(SYMBOL, as_of=AFTER)
    row = valuation(repository, AFTER)

    perturbed = copy.deepcopy(FACTS)  # every fact filed later doubled, the split tag included
    for concepts in perturbed["facts"].values():
        for concept in concepts.values():
            for items in concept["units"].values():
                for fact in items:
                    if fact["filed"] > AFTER.isoformat():
                        fact["val"] *= 2
    later = {
        d.date(): 99.0 for d in pd.bdate_range("2024-07-01", "2024-08-30")
    }  # other prices, a later split
    other = SqlMarketDataRepository(Database(f"sqlite:///{tmp_path / 'other.db'}"))
    load(
        other, perturbed, yahoo_csv(tmp_path / "other.csv", {SPLIT_DAY: 10.0, date(2024, 7, 15): 2.0}, later)
    )
    assert GetFinanceForTickerUseCase(other).execute(SYMBOL, as_of=AFTER) == reports
    assert valuation(other, AFTER) == row
    assert valuation(other, RESTATED)["close"] == 99.0  # the perturbation is real


def test_a_split_only_the_filings_tag_applies_from_the_first_filing_that_tags_it(
    repository: SqlMarketDataRepository,
) -> None:
    load(repository)  # no price data: the split is known from the 10-Q of 2024-07-25 only
    assert eps_ttm(repository, AFTER) == pytest.approx(11.00)  # not yet known: the old basis
    assert eps_ttm(repository, RESTATED) == pytest.approx(1.20)


def test_versions_sliced_by_announcement_match_the_reads_as_of_each_day(
    repository: SqlMarketDataRepository, tmp_path: Path
) -> None:
    """The bulk path (evaluation, screens) slices versions by ann_date: on every day its latest
    version of each period equals what the use case gives as of that day."""
    load(repository, prices=yahoo_csv(tmp_path / "TENX.csv", {SPLIT_DAY: 10.0}))
    versions = GetMarketFramesUseCase(repository).financial_versions([SYMBOL])
    copies = versions[versions["extra"].map(lambda e: "rebased_for_split" in (e or {}))]
    assert set(copies["ann_date"]) == {pd.Timestamp(SPLIT_DAY)}
    finance = GetFinanceForTickerUseCase(repository)
    for day in pd.date_range("2024-04-20", "2024-08-05"):
        seen = versions[versions["ann_date"] <= day].sort_values("ann_date")
        latest = seen.groupby("end_date").tail(1).set_index("end_date")
        for report in finance.execute(SYMBOL, as_of=day.date()):
            stored = latest.loc[pd.Timestamp(report.end_date)]
            for column in ("eps", "dt_eps", "bps", "total_shares"):
                expected = getattr(report, column)
                expected = np.nan if expected is None else expected
                assert stored[column] == pytest.approx(expected, nan_ok=True), (day, report.end_date, column)


def test_share_factor_compounds_splits_and_waits_until_each_is_known() -> None:
    splits = events(
        pd.DataFrame(
            {"symbol": "X", "ex_date": pd.to_datetime(["2020-01-10", "2021-01-10"]), "ratio": [2.0, 3.0],
             "known_date": pd.to_datetime(["2020-01-10", "2021-03-01"]), "source": ["prices", "filings"]}
        )
    )  # fmt: skip
    basis = np.datetime64("2019-12-31")
    days = np.array(["2020-01-09", "2020-01-10", "2021-01-10", "2021-03-01"], dtype="datetime64[D]")
    assert share_factor(splits, basis, days).tolist() == [1.0, 2.0, 2.0, 6.0]
    # a figure filed on or after the ex-date is already on the new basis
    assert share_factor(splits, np.datetime64("2020-01-10"), np.datetime64("2021-06-01")) == 3.0


def test_a_filings_split_the_price_data_also_records_is_one_event() -> None:
    both = pd.DataFrame(
        {"symbol": "X", "ex_date": pd.to_datetime(["2024-06-10", "2024-06-30"]), "ratio": [10.0, 10.0],
         "known_date": pd.to_datetime(["2024-06-10", "2024-08-28"]), "source": ["prices", "filings"]}
    )  # fmt: skip
    assert events(both)[["ex_date", "source"]].to_dict("records") == [
        {"ex_date": pd.Timestamp("2024-06-10"), "source": "prices"}
    ]


def test_dividends_paid_before_a_split_are_divided_by_its_ratio() -> None:
    days = pd.DataFrame(
        {"symbol": "X", "trade_date": pd.to_datetime(["2024-06-07", "2024-06-10", "2024-09-10"])}
    )
    dividends = pd.DataFrame(
        {
            "symbol": "X",
            "ex_date": pd.to_datetime(["2024-03-05", "2024-06-11"]),
            "cash_per_share": [0.04, 0.01],
        }
    )
    splits = pd.DataFrame(
        {"symbol": "X", "ex_date": [pd.Timestamp("2024-06-10")], "ratio": [10.0], "known_date": [pd.NaT],
         "source": ["prices"]}
    )  # fmt: skip
    assert dividend_ttm(days, dividends, splits).tolist() == pytest.approx([0.04, 0.004, 0.004 + 0.01])


def test_data_sync_stores_yahoo_history_as_traded_with_its_split(database: Database, tmp_path: Path) -> None:
    """yfinance restates its whole history on today's shares: the provider puts each day back on its
    own shares (as the CSV importer does) and the sync stores the split, so prices stay on one basis
    with the reports whatever splits come later."""
    frame = pd.read_csv(yahoo_csv(tmp_path / "h.csv", {SPLIT_DAY: 10.0}))
    index = pd.DatetimeIndex(
        pd.to_datetime(frame.pop("Date")).dt.tz_localize("America/New_York"), name="Date"
    )
    sdk = SimpleNamespace(
        Ticker=lambda code: SimpleNamespace(
            history=lambda **_: frame.set_index(index), info={"longName": "T"}
        )
    )
    provider = YFinanceProvider(sdk, policy=FAST, limiter=fast_limiter(), sleep=no_sleep)
    repository = SqlMarketDataRepository(database)
    sync = SyncService(
        {"US": [provider]}, repository, SqlSyncStateRepository(database), today=lambda: RESTATED
    )
    sync.sync("US", [SYMBOL], date(2024, 6, 6), date(2024, 6, 11), "run-1")
    bars = GetDailyBarsUseCase(repository).execute(SYMBOL, as_of=RESTATED)
    assert [b.close for b in bars] == pytest.approx([132.0, 132.0, 13.2, 13.2])  # 06-06, 06-07, 06-10, 06-11
    assert [b.volume for b in bars] == pytest.approx([1e6] * 4)
    assert [b.pct_chg for b in bars] == pytest.approx([0.0] * 4)  # no jump on the split day
    assert len({round(b.close * b.adj_factor, 9) for b in bars}) == 1  # the adjusted price runs on through it
    stored = repository.splits_frame([SYMBOL])
    assert stored[["ex_date", "ratio", "known_date", "source"]].to_dict("records") == [
        {"ex_date": SPLIT_DAY, "ratio": 10.0, "known_date": SPLIT_DAY, "source": "prices"}
    ]
