"""Tushare CSV import: units, adj factors, report revisions, rejection, idempotence, point in time."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.application.use_cases import (
    GetDailyBarsUseCase,
    GetFinanceForTickerUseCase,
    GetStockBasicInfoUseCase,
    GetValuationDailiesForTickerUseCase,
)
from stockdesk.data_engineering.domain.exceptions import ImportValidationError
from stockdesk.data_engineering.infrastructure.importers.tushare_csv import read_tushare_folder
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

FIXTURES = Path(__file__).parent / "fixtures" / "tushare"


@pytest.fixture
def repository(database: Database) -> SqlMarketDataRepository:
    return SqlMarketDataRepository(database)


def import_folder(folder: Path, repository: SqlMarketDataRepository) -> list:
    service = MarketDataImportService(repository)
    return [service.import_frames(g.source, g.frames) for g in read_tushare_folder(folder)]


def test_import_converts_units_and_merges_adj_factor(repository: SqlMarketDataRepository) -> None:
    import_folder(FIXTURES, repository)
    bars = GetDailyBarsUseCase(repository).execute("600001.SH", as_of=date(2024, 1, 31))
    assert [b.trade_date for b in bars] == [date(2024, 1, d) for d in (2, 3, 4, 5)]  # sorted, oldest first
    last = bars[-1]
    assert last.close == 10.7 and last.pre_close == 10.5
    assert last.volume == pytest.approx(1200.5 * 100)  # lots -> shares
    assert last.amount == pytest.approx(1280.0 * 1000)  # 1,000 CNY -> CNY
    assert [b.adj_factor for b in bars] == [1.5, 1.5, 2.0, 2.0]
    valuations = GetValuationDailiesForTickerUseCase(repository).execute("600001.SH", as_of=date(2024, 1, 31))
    assert valuations[-1].total_mv == pytest.approx(107000.0 * 10_000)  # 10k CNY -> CNY
    assert valuations[-1].pe_ttm == 11.5 and valuations[-1].ps_ttm is None
    assert not any(v.is_derived for v in valuations)


def test_securities_come_from_the_universe_file(repository: SqlMarketDataRepository) -> None:
    import_folder(FIXTURES, repository)
    security = GetStockBasicInfoUseCase(repository).require("600001")
    assert (security.symbol, security.name, security.industry) == ("600001.SH", "示例银行", "银行")
    assert (security.market, security.exchange, security.currency) == ("CN", "SH", "CNY")
    assert security.list_date == date(1999, 1, 1)


def test_repeated_fina_indicator_rows_collapse_to_one_report(repository: SqlMarketDataRepository) -> None:
    import_folder(FIXTURES, repository)
    reports = GetFinanceForTickerUseCase(repository).execute("600001.SH", as_of=date(2024, 1, 31))
    assert [(r.end_date, r.report_type) for r in reports] == [
        (date(2023, 9, 30), "Q3"),
        (date(2023, 6, 30), "H1"),
    ]
    q3 = reports[0]
    assert q3.grossprofit_margin == 35.2  # the percentage, not `gross_margin` (an amount)
    assert q3.extra["gross_margin"] == 350000000.0 and q3.extra["q_roe"] == 3.3  # blank filled from twin
    assert reports[1].bps == 7.0  # first revision as Tushare returned it


def test_financial_reports_are_invisible_before_their_announcement(
    repository: SqlMarketDataRepository,
) -> None:
    import_folder(FIXTURES, repository)
    finance = GetFinanceForTickerUseCase(repository)
    assert [r.end_date for r in finance.execute("600001.SH", as_of=date(2023, 10, 29))] == [date(2023, 6, 30)]
    assert finance.execute("600001.SH", as_of=date(2023, 8, 24)) == []


def test_reimport_changes_no_row_count(repository: SqlMarketDataRepository) -> None:
    import_folder(FIXTURES, repository)
    before = repository.counts()
    results = import_folder(FIXTURES, repository)
    assert repository.counts() == before
    assert all(n == 0 for r in results for n in r.new_rows.values())


def copy_fixtures(tmp_path: Path) -> Path:
    folder = tmp_path / "tushare"
    shutil.copytree(FIXTURES, folder)
    return folder


def test_bad_file_rejects_its_symbol_with_row_reasons_and_writes_nothing(
    tmp_path: Path, repository: SqlMarketDataRepository
) -> None:
    folder = copy_fixtures(tmp_path)
    daily = folder / "daily_600001_SH_20240101_20240110.csv"
    lines = daily.read_text().splitlines()
    lines[2] = lines[2].replace("20240104", "2024-13-45")  # unparsable date in data row 2
    lines[3] = lines[3].replace(",10.2,10.0,", ",-10.2,10.0,")  # negative close in data row 3
    daily.write_text("\n".join(lines) + "\n")
    groups = read_tushare_folder(folder)
    service = MarketDataImportService(repository)
    symbol_group = next(g for g in groups if g.source.startswith("600001.SH"))
    with pytest.raises(ImportValidationError) as info:
        service.import_frames(symbol_group.source, symbol_group.frames)
    reasons = {(p.row, p.reason.split(":")[0]) for p in info.value.problems}
    assert (2, "trade_date") in reasons
    assert any(
        row == 3 and "price must be positive" in p.reason for p in info.value.problems for row in [p.row]
    )
    counts = repository.counts()
    assert counts["bars"] == counts["valuations"] == counts["financials"] == 0


def test_duplicate_bar_with_different_values_is_rejected(
    tmp_path: Path, repository: SqlMarketDataRepository
) -> None:
    folder = copy_fixtures(tmp_path)
    daily = folder / "daily_600001_SH_20240101_20240110.csv"
    daily.write_text(
        daily.read_text() + "600001.SH,20240105,10.5,10.8,10.4,10.9,10.5,0.4,3.8,1200.5,1280.0\n"
    )
    group = next(g for g in read_tushare_folder(folder) if g.source.startswith("600001.SH"))
    with pytest.raises(ImportValidationError) as info:
        MarketDataImportService(repository).import_frames(group.source, group.frames)
    assert any("duplicate key" in p.reason and "close" in p.reason for p in info.value.problems)


def test_missing_column_is_a_file_level_rejection(tmp_path: Path) -> None:
    folder = copy_fixtures(tmp_path)
    (folder / "adj_factor_600001_SH_20240101_20240110.csv").write_text(
        "ts_code,trade_date\n600001.SH,20240105\n"
    )
    with pytest.raises(ImportValidationError) as info:
        read_tushare_folder(folder)
    assert "adj_factor" in info.value.problems[0].reason


def test_cli_import_reports_and_exits_non_zero_on_rejection(tmp_path: Path, isolated_home: Path) -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "stockdesk", "data", "import", "tushare-csv", str(FIXTURES), "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert '"bars": 4' in ok.stdout
    folder = copy_fixtures(tmp_path)
    (folder / "daily_600001_SH_20240101_20240110.csv").write_text(
        "ts_code,trade_date,open,high,low,close,pre_close,change,pct_chg,vol,amount\n"
        "600001.SH,notadate,1,1,1,1,1,0,0,1,1\n"
    )
    bad = subprocess.run(
        [sys.executable, "-m", "stockdesk", "data", "import", "tushare-csv", str(folder)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 1
    assert "rejected" in bad.stderr and "unparsable date" in bad.stderr
    reports = list((isolated_home / "reports").glob("import-rejections-*.json"))
    assert len(reports) == 1 and "notadate" in reports[0].read_text()
