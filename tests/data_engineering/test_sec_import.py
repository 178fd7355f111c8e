"""SEC EDGAR JSON import: security, filings, YTD reports point in time, derived valuations, CLI.

Expected numbers are worked out by hand from the fixture (see fixtures/sec/README.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from stockdesk.data_engineering.application.derived_valuations import DerivedValuationService
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.application.use_cases import (
    GetFilingsUseCase,
    GetFinanceForTickerUseCase,
    GetStockBasicInfoUseCase,
    GetValuationDailiesForTickerUseCase,
)
from stockdesk.data_engineering.infrastructure.importers.sec_facts import financial_reports, same_value
from stockdesk.data_engineering.infrastructure.importers.sec_json import read_sec_folder, scan_sec_folder
from stockdesk.data_engineering.infrastructure.importers.yfinance_csv import read_yfinance_csv
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

FIXTURES = Path(__file__).parent / "fixtures"
SEC = FIXTURES / "sec"
FACTS = SEC / "companyfacts" / "CIK0000012345.json"
SUBMISSIONS = SEC / "submissions" / "CIK0000012345.json"
BARS = FIXTURES / "yfinance" / "ACME_historical_data.csv"  # 2024-10-22 .. 2024-10-29
LATER = date(2025, 12, 31)


@pytest.fixture
def repository(database: Database) -> SqlMarketDataRepository:
    return SqlMarketDataRepository(database)


def import_sec(folder: Path, repository: SqlMarketDataRepository) -> None:
    service = MarketDataImportService(repository)
    for group in read_sec_folder(folder):
        service.import_frames(group.source, group.frames)


def import_bars(path: Path, repository: SqlMarketDataRepository) -> None:
    service = MarketDataImportService(repository)
    for group in read_yfinance_csv(path, "ACME"):
        service.import_frames(group.source, group.frames)


def test_security_comes_from_submissions(repository: SqlMarketDataRepository) -> None:
    import_sec(SEC, repository)
    security = GetStockBasicInfoUseCase(repository).require("acme")
    assert (security.symbol, security.name, security.industry) == (
        "ACME",
        "Acme Widgets Inc.",
        "Household Appliances",
    )
    assert (security.market, security.exchange, security.currency) == ("US", "NYSE", "USD")
    assert security.provider_codes == {"sec_cik": "0000012345"}


def test_filings_are_listed_with_edgar_urls(repository: SqlMarketDataRepository) -> None:
    import_sec(SEC, repository)
    filings = GetFilingsUseCase(repository).execute("ACME", as_of=LATER)
    assert len(filings) == 8 and filings[0].filed_date == date(2025, 2, 7)  # newest first
    ten_q = GetFilingsUseCase(repository).execute("ACME", as_of=date(2024, 10, 25), forms=["10-Q"])[0]
    assert (ten_q.accession_number, ten_q.report_date) == ("0000012345-24-000033", date(2024, 9, 30))
    assert ten_q.url == "https://www.sec.gov/Archives/edgar/data/12345/000001234524000033/acme-20240930.htm"
    by_number = {f.accession_number: f for f in filings}
    no_document = by_number["0000012345-24-000001"]  # SC 13G/A without primary document or period
    assert no_document.report_date is None
    assert no_document.url == (
        "https://www.sec.gov/Archives/edgar/data/12345/000001234524000001/0000012345-24-000001-index.htm"
    )
    assert GetFilingsUseCase(repository).execute("ACME", as_of=date(2024, 10, 24), forms=["10-Q"])[
        0
    ].filed_date == (date(2024, 7, 26))


def test_reports_are_year_to_date_per_fiscal_period(repository: SqlMarketDataRepository) -> None:
    import_sec(SEC, repository)
    reports = GetFinanceForTickerUseCase(repository).execute("ACME", as_of=LATER)
    assert [(r.end_date.isoformat(), r.report_type, r.eps) for r in reports] == [
        ("2024-12-31", "A", 2.60),  # the 10-K's Q4-only duration (0.70) is not a report
        ("2024-09-30", "Q3", 1.90),  # not the 8-K press-release figure 1.95
        ("2024-06-30", "H1", 1.25),
        ("2024-03-31", "Q1", 0.60),
        ("2023-12-31", "A", 2.20),
        ("2023-09-30", "Q3", 1.60),
        ("2023-06-30", "H1", 0.98),  # latest version: restated in the Q2 2024 10-Q
        ("2023-03-31", "Q1", 0.50),
    ]
    q3 = reports[1]
    assert q3.ann_date == date(2024, 10, 25) and q3.extra["form"] == "10-Q"
    assert q3.revenue == 3_900_000_000 and q3.total_shares == 100_000_000
    assert q3.net_profit == 125_000_000 + 65_000_000  # only the quarter was tagged: H1 YTD + Q3
    assert q3.bps == pytest.approx(2_400_000_000 / 100_000_000)
    assert q3.debt_to_assets == pytest.approx(3_600 / 6_000 * 100)
    assert q3.grossprofit_margin == pytest.approx(1_560 / 3_900 * 100)
    assert q3.netprofit_margin == pytest.approx(190 / 3_900 * 100)
    assert q3.roe == pytest.approx(190 / 2_400 * 100)
    assert reports[0].total_shares == 99_000_000  # cover-page count of the 10-K, dated after the period


def test_a_report_is_invisible_before_its_filing_date(repository: SqlMarketDataRepository) -> None:
    import_sec(SEC, repository)
    finance = GetFinanceForTickerUseCase(repository)
    assert finance.execute("ACME", as_of=date(2024, 10, 24))[0].end_date == date(2024, 6, 30)
    assert finance.execute("ACME", as_of=date(2024, 10, 25))[0].end_date == date(2024, 9, 30)
    assert finance.execute("ACME", as_of=date(2023, 4, 27)) == []
    assert [r.end_date for r in finance.execute("ACME", as_of=date(2023, 4, 28))] == [date(2023, 3, 31)]


def test_a_restatement_is_a_later_version_and_a_rounded_retag_is_not(
    repository: SqlMarketDataRepository,
) -> None:
    import_sec(SEC, repository)
    finance = GetFinanceForTickerUseCase(repository)

    def h1_2023(as_of: date) -> Any:
        return next(r for r in finance.execute("ACME", as_of=as_of) if r.end_date == date(2023, 6, 30))

    assert (h1_2023(date(2024, 7, 25)).eps, h1_2023(date(2024, 7, 25)).net_profit) == (1.00, 100_000_000)
    restated = h1_2023(date(2024, 7, 26))
    assert (restated.eps, restated.net_profit, restated.ann_date) == (0.98, 98_000_000, date(2024, 7, 26))
    assert restated.revenue == 2_100_000_000  # values not re-reported carry over
    versions = repository.financials_frame(["ACME"])
    per_period = versions.groupby("end_date").size()
    assert per_period.sum() == 9 and per_period.max() == 2  # only H1 2023 has two versions
    fy2023 = finance.execute("ACME", as_of=LATER)[4]
    assert fy2023.revenue == 4_499_600_000  # the 10-K 2024 re-tag 4,500M is that number in millions


def test_same_value_allows_rounding_to_millions_only() -> None:
    a = pd.Series([4_499_600_000.0, 137_594_000.0, 0.33, 2.0, 3_000_000.0])
    b = pd.Series([4_500_000_000.0, 138_000_000.0, 0.3, 2.01, 0.0])
    assert same_value(a, b).tolist() == [True, True, False, False, False]


def test_derived_pe_ttm_is_close_over_ttm_eps_of_reports_filed_by_then(
    repository: SqlMarketDataRepository,
) -> None:
    import_sec(SEC, repository)
    import_bars(BARS, repository)
    assert DerivedValuationService(repository).refresh(["ACME"]) == 6
    rows = {
        v.trade_date: v for v in GetValuationDailiesForTickerUseCase(repository).execute("ACME", as_of=LATER)
    }
    before, on = rows[date(2024, 10, 24)], rows[date(2024, 10, 25)]
    # 2024-10-24: latest filed is H1 2024; TTM = 1.25 + FY2023 2.20 - H1 2023 (restated) 0.98
    assert before.pe_ttm == pytest.approx(50.099998474121094 / (1.25 + 2.20 - 0.98))
    # 2024-10-25: the Q3 10-Q is out; TTM = 1.90 + 2.20 - 1.60
    assert on.pe_ttm == pytest.approx(52.5 / (1.90 + 2.20 - 1.60))
    assert on.pe == pytest.approx(52.5 / 2.20)
    assert on.pb == pytest.approx(52.5 / 24.0)
    assert on.total_mv == pytest.approx(52.5 * 100_000_000)
    assert on.ps_ttm == pytest.approx(52.5 * 100_000_000 / (3_900e6 + 4_499.6e6 - 3_300e6))
    assert on.is_derived and before.is_derived


def test_json_files_may_sit_directly_in_the_folder(
    repository: SqlMarketDataRepository, tmp_path: Path
) -> None:
    flat = tmp_path / "flat"
    flat.mkdir()
    shutil.copy(FACTS, flat / "companyfacts-acme.json")
    shutil.copy(SUBMISSIONS, flat / "submissions-acme.json")
    (flat / "notes.json").write_text('{"hello": "not SEC"}')
    groups = read_sec_folder(flat)
    nested = read_sec_folder(SEC)
    assert len(groups) == 1 and set(groups[0].frames) == {"securities", "filings", "financials"}
    pd.testing.assert_frame_equal(groups[0].frames["financials"], nested[0].frames["financials"])


def test_companyfacts_without_submissions_is_rejected_alone(tmp_path: Path) -> None:
    folder = tmp_path / "sec"
    shutil.copytree(SEC, folder)
    other = json.loads(FACTS.read_text())
    other["cik"] = 67890
    (folder / "companyfacts" / "CIK0000067890.json").write_text(json.dumps(other))
    (folder / "submissions" / "CIK0000099999.json").write_text("{not json")
    groups, rejected = scan_sec_folder(folder)
    assert [g.source.split()[0] for g in groups] == ["ACME"]
    messages = sorted(r.message for r in rejected)
    assert len(messages) == 2
    assert "CIK0000099999.json" in messages[0] and "not readable JSON" in messages[0]
    assert "CIK0000067890" in messages[1] and "ticker" in messages[1]


def test_reimport_changes_no_row_counts(repository: SqlMarketDataRepository) -> None:
    import_sec(SEC, repository)
    first = repository.counts()
    assert (first["securities"], first["filings"], first["financials"]) == (1, 8, 9)
    import_sec(SEC, repository)
    assert repository.counts() == first


def test_bars_imported_later_keep_the_sec_security_details(repository: SqlMarketDataRepository) -> None:
    import_sec(SEC, repository)
    import_bars(BARS, repository)
    security = GetStockBasicInfoUseCase(repository).require("ACME")
    assert (security.name, security.exchange) == ("Acme Widgets Inc.", "NYSE")
    assert security.provider_codes == {"sec_cik": "0000012345"}


# ---- a fiscal year ending in September: the same company, every date 92 days earlier ----------
SHIFT = pd.Timedelta(days=-92)


def shifted_facts() -> dict[str, Any]:
    payload = json.loads(FACTS.read_text())
    for concept in payload["facts"].values():
        for fact_list in (u for c in concept.values() for u in c["units"].values()):
            for fact in fact_list:
                for key in ("start", "end", "filed"):
                    if key in fact:
                        fact[key] = (pd.Timestamp(fact[key]) + SHIFT).date().isoformat()
    return payload


def test_non_december_fiscal_years_keep_real_end_dates_and_fp_report_types() -> None:
    reports = financial_reports(shifted_facts(), "ACME")
    by_end = dict(zip(reports["end_date"].dt.date, reports["report_type"], strict=False))
    assert by_end[date(2023, 9, 30)] == "A"  # FY2023 ends in September
    assert by_end[date(2022, 12, 29)] == "Q1"  # a December end that is a first quarter
    assert by_end[date(2024, 3, 30)] == "H1"
    q3 = reports[reports["end_date"] == pd.Timestamp("2024-06-30")].iloc[-1]
    assert (q3["report_type"], q3["eps"], q3["net_profit"]) == ("Q3", 1.90, 190_000_000)


def test_non_december_fiscal_year_pe_ttm(repository: SqlMarketDataRepository, tmp_path: Path) -> None:
    service = MarketDataImportService(repository)
    frames = {"financials": financial_reports(shifted_facts(), "ACME")}
    service.import_frames("shifted companyfacts", frames)
    bars = pd.read_csv(BARS, dtype={"Date": str})
    bars["Date"] = (pd.to_datetime(bars["Date"]) + SHIFT).dt.strftime("%Y-%m-%d")
    bars.to_csv(tmp_path / "ACME.csv", index=False)
    import_bars(tmp_path / "ACME.csv", repository)
    DerivedValuationService(repository).refresh(["ACME"])
    on = {v.trade_date: v for v in repository.get_valuations("ACME", LATER)}[date(2024, 7, 25)]
    assert on.pe_ttm == pytest.approx(52.5 / (1.90 + 2.20 - 1.60))  # Q3 YTD + FY2023 - Q3 FY2023 YTD
    assert on.pe == pytest.approx(52.5 / 2.20)


# ---- the command ---------------------------------------------------------------------------------
def stockdesk(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_cli_imports_sec_and_refreshes_derived_valuations(tmp_path: Path) -> None:
    bars = stockdesk("data", "import", "yfinance-csv", str(BARS), "--symbol", "ACME")
    assert bars.returncode == 0, bars.stderr
    result = stockdesk("data", "import", "sec", str(SEC), "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)["imported"][0]["rows"]
    assert rows == {"securities": 1, "filings": 8, "financials": 9}
    assert "derived valuations: 6 row(s) written for ACME" in result.stderr
    shown = json.loads(stockdesk("data", "show", "ACME", "--json", "--as-of", "2024-10-29").stdout)
    assert shown["latest_valuation"]["pe_ttm"] == pytest.approx(52.599998474121094 / 2.50)
    assert shown["latest_financial"]["end_date"] == "2024-09-30"


def test_cli_bad_sec_file_is_one_rejection_line_and_exit_1(tmp_path: Path) -> None:
    folder = tmp_path / "sec"
    folder.mkdir()
    (folder / "CIK0000012345.json").write_text('{"cik": "0000012345", "filings": ')
    result = stockdesk("data", "import", "sec", str(folder))
    assert result.returncode == 1
    rejected = [line for line in result.stderr.splitlines() if line.startswith("rejected:")]
    assert len(rejected) == 1 and "not readable JSON" in rejected[0], result.stderr
    assert "Traceback" not in result.stderr


def test_cli_missing_folder_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = stockdesk("data", "import", "sec", str(tmp_path / "nope"))
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "not a directory" in lines[0], result.stderr
