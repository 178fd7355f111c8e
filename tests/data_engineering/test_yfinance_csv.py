"""Yahoo Finance CSV import: both date formats, un-split prices, adj factor, dividends, rejection, CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from stockdesk.data_engineering.application.derived_valuations import DerivedValuationService
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.application.use_cases import GetDailyBarsUseCase, GetStockBasicInfoUseCase
from stockdesk.data_engineering.domain.exceptions import ImportValidationError
from stockdesk.data_engineering.infrastructure.importers.yfinance_csv import read_yfinance_csv
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

FIXTURES = Path(__file__).parent / "fixtures" / "yfinance"
MDY = FIXTURES / "XMPL_historical_data.csv"  # m/d/Y, 2:1 split on 6/7/2024, dividend ex 6/6/2024
ISO = FIXTURES / "ACME_historical_data.csv"  # ISO dates, no corporate actions
AS_OF = date(2025, 1, 1)


@pytest.fixture
def repository(database: Database) -> SqlMarketDataRepository:
    return SqlMarketDataRepository(database)


def import_file(path: Path, symbol: str, repository: SqlMarketDataRepository) -> None:
    service = MarketDataImportService(repository)
    for group in read_yfinance_csv(path, symbol):
        service.import_frames(group.source, group.frames)


def test_mdy_dates_parse_and_prices_are_the_ones_traded_before_the_split(
    repository: SqlMarketDataRepository,
) -> None:
    import_file(MDY, "xmpl", repository)
    bars = GetDailyBarsUseCase(repository).execute("XMPL", as_of=AS_OF)
    assert [b.trade_date for b in bars] == [date(2024, 6, d) for d in (3, 4, 5, 6, 7, 10)]
    # Yahoo halves history before the 2:1 split of 6/7; the store keeps the traded prices
    assert [b.close for b in bars] == pytest.approx([50.5, 51.5, 51.0, 50.8, 25.8, 26.2])
    assert bars[0].volume == pytest.approx(1_000_000)  # Yahoo's 2,000,000 are post-split shares
    assert bars[0].open == pytest.approx(50.0) and bars[0].high == pytest.approx(51.0)
    assert bars[4].volume == pytest.approx(3_000_000)  # from the split day on: unchanged
    # split day: previous close on today's share basis (50.8 / 2), so the change is a real return
    assert bars[4].pre_close == pytest.approx(25.4)
    assert bars[4].pct_chg == pytest.approx((25.8 / 25.4 - 1) * 100)
    assert bars[1].pre_close == pytest.approx(50.5) and bars[1].pct_chg == pytest.approx(100 / 50.5)
    assert bars[0].pre_close is None and bars[0].amount is None


def test_adj_factor_reproduces_yahoo_adjusted_close(repository: SqlMarketDataRepository) -> None:
    import_file(MDY, "XMPL", repository)
    bars = GetDailyBarsUseCase(repository).execute("XMPL", as_of=AS_OF)
    # Adj Close / traded close: 0.99 (dividend) x 0.5 (split) before the ex-date, 0.5 until the split
    assert [b.adj_factor for b in bars] == pytest.approx([0.495, 0.495, 0.495, 0.5, 1.0, 1.0])
    file = pd.read_csv(MDY)
    latest = bars[-1].adj_factor
    assert [b.close * b.adj_factor / latest for b in bars] == pytest.approx(file["Adj Close"].tolist())


def test_dividends_are_stored_per_share_as_paid(repository: SqlMarketDataRepository) -> None:
    import_file(MDY, "XMPL", repository)
    dividends = repository.dividends_frame(["XMPL"])
    assert len(dividends) == 1
    assert pd.Timestamp(dividends.loc[0, "ex_date"]) == pd.Timestamp("2024-06-06")
    assert dividends.loc[0, "cash_per_share"] == pytest.approx(0.51)  # Yahoo's 0.255 per post-split share


def test_iso_dates_parse_and_a_bare_security_is_created(repository: SqlMarketDataRepository) -> None:
    import_file(ISO, "ACME", repository)
    bars = GetDailyBarsUseCase(repository).execute("ACME", as_of=AS_OF)
    assert [b.trade_date for b in bars] == [date(2024, 10, d) for d in (22, 23, 24, 25, 28, 29)]
    assert bars[3].close == pytest.approx(52.5) and bars[3].pre_close == pytest.approx(50.1)
    assert all(b.adj_factor == pytest.approx(1.0) for b in bars)
    assert repository.dividends_frame(["ACME"]).empty  # "0.0" dividends are not dividends
    security = GetStockBasicInfoUseCase(repository).require("ACME")
    assert (security.market, security.currency, security.name) == ("US", "USD", None)


def write_variant(tmp_path: Path, row: int, column: str, value: str) -> Path:
    """The m/d/Y fixture with one cell replaced (row = 1-based data row)."""
    frame = pd.read_csv(MDY, dtype=str)
    frame.loc[row - 1, column] = value
    path = tmp_path / "XMPL_bad.csv"
    frame.to_csv(path, index=False)
    return path


def test_unparsable_date_rejects_the_file_with_its_row(
    repository: SqlMarketDataRepository, tmp_path: Path
) -> None:
    before = repository.counts()
    with pytest.raises(ImportValidationError) as caught:
        import_file(write_variant(tmp_path, 3, "Date", "13/45/2024"), "XMPL", repository)
    assert [p.row for p in caught.value.problems] == [3]
    assert "unparsable date '13/45/2024'" in caught.value.message
    assert repository.counts() == before


def test_negative_price_rejects_the_whole_file_and_writes_nothing(
    repository: SqlMarketDataRepository, tmp_path: Path
) -> None:
    before = repository.counts()
    assert sum(before.values()) == 0
    with pytest.raises(ImportValidationError) as caught:
        import_file(write_variant(tmp_path, 4, "Low", "-25.1"), "XMPL", repository)
    assert [p.row for p in caught.value.problems] == [4]
    assert "price must be positive" in caught.value.message
    assert repository.counts() == before  # no security, bar or dividend of the file either


def test_reimport_changes_no_row_counts(repository: SqlMarketDataRepository) -> None:
    import_file(MDY, "XMPL", repository)
    first = repository.counts()
    assert (first["bars"], first["dividends"], first["securities"]) == (6, 1, 1)
    import_file(MDY, "XMPL", repository)
    assert repository.counts() == first


def test_derived_dividend_yield_after_import(repository: SqlMarketDataRepository) -> None:
    import_file(MDY, "XMPL", repository)
    assert DerivedValuationService(repository).refresh(["XMPL"]) == 6
    valuations = repository.get_valuations("XMPL", AS_OF)
    assert valuations[2].dv_ttm is None or valuations[2].dv_ttm == 0  # before the ex-date
    assert valuations[3].dv_ttm == pytest.approx(0.51 / 50.8 * 100)


def stockdesk(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_cli_imports_a_file_and_refreshes_derived_valuations(tmp_path: Path) -> None:
    path = shutil.copy(ISO, tmp_path / ISO.name)
    result = stockdesk("data", "import", "yfinance-csv", str(path), "--symbol", "ACME", "--json")
    assert result.returncode == 0, result.stderr
    imported = json.loads(result.stdout)["imported"]
    assert imported[0]["rows"]["bars"] == 6 and imported[0]["rows"]["securities"] == 1
    assert "derived valuations: 6 row(s) written for ACME" in result.stderr
    shown = stockdesk("data", "show", "ACME", "--json", "--as-of", "2024-10-31")
    assert shown.returncode == 0, shown.stderr
    summary = json.loads(shown.stdout)
    assert summary["bars"]["count"] == 6 and summary["derived_valuations"] == 6


def test_cli_bad_file_fails_with_one_line(tmp_path: Path) -> None:
    result = stockdesk(
        "data",
        "import",
        "yfinance-csv",
        str(write_variant(tmp_path, 3, "Date", "2024-99-01")),
        "--symbol",
        "XMPL",
    )
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert "XMPL_bad.csv" in lines[0] and "row 3" in lines[0] and "nothing imported" in lines[0]


def test_cli_rejected_rows_exit_1_and_name_the_rows(tmp_path: Path) -> None:
    result = stockdesk(
        "data", "import", "yfinance-csv", str(write_variant(tmp_path, 5, "Close", "-1")), "--symbol", "XMPL"
    )
    assert result.returncode == 1
    rejected = [line for line in result.stderr.splitlines() if line.startswith("rejected:")]
    assert len(rejected) == 1 and "row 5" in rejected[0], result.stderr
    assert "Traceback" not in result.stderr and "derived valuations" not in result.stderr


def test_a_zero_close_gives_no_dividend_yield_rather_than_infinity() -> None:
    """The fuzzer's find: a spoiled file with a 0 close after a dividend stored dv_ttm = inf."""
    import numpy as np
    import pandas as pd

    from stockdesk.data_engineering.application.derived_valuations import derive_valuations

    bars = pd.DataFrame(
        {
            "symbol": ["ACME"] * 3,
            "trade_date": ["2024-01-02", "2024-01-03", "2024-01-04"],
            "close": [10.0, 0.0, 11.0],
        }
    )
    dividends = pd.DataFrame({"symbol": ["ACME"], "ex_date": ["2024-01-02"], "cash_per_share": [0.5]})
    out = derive_valuations(bars, pd.DataFrame(), dividends)
    dv = out["dv_ttm"].to_numpy(dtype=float)
    assert np.isfinite(dv[[0, 2]]).all() and np.isnan(dv[1])
    assert dv[0] == pytest.approx(5.0)
