"""CSV importers fuzzed: spoiled Tushare, Yahoo Finance, intraday and news files (see fuzz_support).

Every example runs the real `stockdesk data import ...` command on a store that already holds the
clean file, so both first writes and updates are exercised; a rejection must leave it untouched.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from stockdesk.shared.config import Settings
from tests.data_engineering.fuzz_support import FUZZ, check_import, csv_variant, snapshot, write

FIXTURES = Path(__file__).parent / "fixtures"
TUSHARE = sorted((FIXTURES / "tushare").glob("*.csv"))
INTRADAY = {
    "AAPL_5m_yfinance.csv": "AAPL",
    "MSFT_5m_yfinance_multiindex.csv": "MSFT",
    "600519_5m_akshare_em.csv": "600519.SH",
    "600519_5m_akshare_sina.csv": "600519.SH",
}
NEWS = {"generic_600001_news.csv": "600001.SH", "nasdaq_XMPL_news.csv": "XMPL"}
YFINANCE = {"ACME_historical_data.csv": "ACME", "XMPL_historical_data.csv": "XMPL"}


@pytest.fixture
def db_file(cli_app: typer.Typer, settings: Settings) -> Path:
    """The store with every clean fixture imported: the baseline each property spoils."""
    db_file = settings.home / "stockdesk.db"
    assert CliRunner().invoke(cli_app, ["db", "upgrade"]).exit_code == 0
    imports = [["import", "tushare-csv", str(FIXTURES / "tushare")]]
    imports += [
        ["import", "yfinance-csv", str(FIXTURES / "yfinance" / n), "--symbol", s] for n, s in YFINANCE.items()
    ]
    imports += [
        ["import", "intraday-csv", str(FIXTURES / "intraday" / n), "--symbol", s] for n, s in INTRADAY.items()
    ]
    imports += [["import", "news-csv", str(FIXTURES / "news" / n), "--symbol", s] for n, s in NEWS.items()]
    for args in imports:
        assert check_import(cli_app, args, db_file, baseline=True).ok, args
    return db_file


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8-sig")


def test_the_clean_fixtures_are_stored(db_file: Path) -> None:
    tables = snapshot(db_file)
    for table in (
        "securities",
        "daily_bars",
        "daily_valuations",
        "financial_reports",
        "bars_5m",
        "news_items",
    ):
        assert tables[table], table


@FUZZ
@given(data=st.data())
def test_a_spoiled_tushare_file_rejects_its_symbol_whole(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    """One symbol's four files (daily, daily_basic, adj_factor, fina_indicator) are one group."""
    folder = tmp_path / "tushare-fuzz"
    shutil.rmtree(folder, ignore_errors=True)
    symbol_files = [p for p in TUSHARE if p.name != "universe.csv"]
    spoiled = data.draw(st.sampled_from(symbol_files), label="file")
    for path in symbol_files:
        content = csv_variant(data, _text(path)) if path == spoiled else path.read_bytes()
        write(folder / path.name, content)
    check_import(cli_app, ["import", "tushare-csv", str(folder)], db_file)


@FUZZ
@given(data=st.data())
def test_a_spoiled_tushare_universe_is_rejected_whole(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    path = write(
        tmp_path / "universe-fuzz" / "universe.csv",
        csv_variant(data, _text(FIXTURES / "tushare" / "universe.csv")),
    )
    check_import(cli_app, ["import", "tushare-csv", str(path.parent)], db_file)


@FUZZ
@given(data=st.data())
def test_a_spoiled_yahoo_finance_file_is_all_or_nothing(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(sorted(YFINANCE)), label="fixture")
    path = write(tmp_path / "yf" / name, csv_variant(data, _text(FIXTURES / "yfinance" / name)))
    check_import(cli_app, ["import", "yfinance-csv", str(path), "--symbol", YFINANCE[name]], db_file)


@FUZZ
@given(data=st.data())
def test_a_spoiled_intraday_file_is_all_or_nothing(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(sorted(INTRADAY)), label="fixture")
    path = write(tmp_path / "intraday" / name, csv_variant(data, _text(FIXTURES / "intraday" / name)))
    check_import(cli_app, ["import", "intraday-csv", str(path), "--symbol", INTRADAY[name]], db_file)


@FUZZ
@given(data=st.data())
def test_a_spoiled_news_file_is_all_or_nothing(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(sorted(NEWS)), label="fixture")
    path = write(tmp_path / "news" / name, csv_variant(data, _text(FIXTURES / "news" / name)))
    check_import(cli_app, ["import", "news-csv", str(path), "--symbol", NEWS[name]], db_file)
