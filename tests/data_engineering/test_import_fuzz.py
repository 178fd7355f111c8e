"""CSV importers fuzzed: spoiled Tushare, Yahoo Finance, intraday and news files (see fuzz_support).

Every example runs the real `stockdesk data import ...` command on a store that already holds the
clean file, so both first writes and updates are exercised; a rejection must leave it untouched.
"""

from __future__ import annotations

import csv
import io
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from stockdesk.shared.config import Settings
from tests.data_engineering.fuzz_support import FUZZ, assert_all_or_nothing, csv_variant, snapshot, write

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
        assert assert_all_or_nothing(cli_app, args, db_file, baseline=True).ok, args
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
    assert_all_or_nothing(cli_app, ["import", "tushare-csv", str(folder)], db_file)


@FUZZ
@given(data=st.data())
def test_a_spoiled_tushare_universe_is_rejected_whole(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    path = write(
        tmp_path / "universe-fuzz" / "universe.csv",
        csv_variant(data, _text(FIXTURES / "tushare" / "universe.csv")),
    )
    assert_all_or_nothing(cli_app, ["import", "tushare-csv", str(path.parent)], db_file)


@FUZZ
@given(data=st.data())
def test_a_spoiled_yahoo_finance_file_is_all_or_nothing(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(sorted(YFINANCE)), label="fixture")
    path = write(tmp_path / "yf" / name, csv_variant(data, _text(FIXTURES / "yfinance" / name)))
    assert_all_or_nothing(cli_app, ["import", "yfinance-csv", str(path), "--symbol", YFINANCE[name]], db_file)


@FUZZ
@given(data=st.data())
def test_a_spoiled_intraday_file_is_all_or_nothing(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(sorted(INTRADAY)), label="fixture")
    path = write(tmp_path / "intraday" / name, csv_variant(data, _text(FIXTURES / "intraday" / name)))
    assert_all_or_nothing(cli_app, ["import", "intraday-csv", str(path), "--symbol", INTRADAY[name]], db_file)


@FUZZ
@given(data=st.data())
def test_a_spoiled_news_file_is_all_or_nothing(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    name = data.draw(st.sampled_from(sorted(NEWS)), label="fixture")
    path = write(tmp_path / "news" / name, csv_variant(data, _text(FIXTURES / "news" / name)))
    assert_all_or_nothing(cli_app, ["import", "news-csv", str(path), "--symbol", NEWS[name]], db_file)


def set_cell(text: str, row: int, column: str, value: str) -> str:
    """`text` (a CSV) with one cell replaced; row 1 is the first data row."""
    rows = list(csv.reader(io.StringIO(text)))
    rows[row][rows[0].index(column)] = value
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


DAILY, YF, BARS = "daily_600001_SH_20240101_20240110.csv", "ACME_historical_data.csv", "AAPL_5m_yfinance.csv"
# each input the fuzzing above once found to crash or to store junk: (case, command, file, spoil, reason)
FOUND = [
    ("empty Tushare file", "tushare-csv", DAILY, lambda t: "", "not a readable CSV file"),
    ("blank ts_code", "tushare-csv", DAILY, lambda t: set_cell(t, 2, "ts_code", ""), "ts_code is blank"),
    ("ts_code with newline", "tushare-csv", DAILY, lambda t: set_cell(t, 1, "ts_code", "0\n"), "not a stock"),
    ("blank trade_date", "tushare-csv", DAILY, lambda t: set_cell(t, 2, "trade_date", ""), "is missing"),
    ("infinite close", "yfinance-csv", YF, lambda t: set_cell(t, 2, "Close", "inf"), "not a finite number"),
    ("year 9999", "yfinance-csv", YF, lambda t: set_cell(t, 2, "Date", "9999-12-31"), "outside 1800-2199"),
    ("year 9999 bar", "intraday-csv", BARS, lambda t: set_cell(t, 1, "Datetime", "9999-12-31 23:59:59"),
     "outside 1800-2199"),
    ("hour offsets", "intraday-csv", BARS, lambda t: t.replace("-04:00", "+05"), None),
    ("a row longer than the header", "intraday-csv", BARS,
     lambda t: t.replace("218.06,218.06,1166082", "218.06,218.06,1166082,7"), "more cells than the header"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("command", "name", "spoil", "reason"), [f[1:] for f in FOUND], ids=[f[0] for f in FOUND]
)
def test_inputs_the_fuzzing_found_are_handled(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, command: str, name: str, spoil: Callable[[str], str],
    reason: str | None,
) -> None:  # fmt: skip
    folder = {"tushare-csv": "tushare", "yfinance-csv": "yfinance", "intraday-csv": "intraday"}[command]
    path = write(tmp_path / "found" / name, spoil(_text(FIXTURES / folder / name)).encode("utf-8"))
    symbol = {"yfinance-csv": ["--symbol", "ACME"], "intraday-csv": ["--symbol", "AAPL"]}.get(command, [])
    outcome = assert_all_or_nothing(
        cli_app, ["import", command, str(path if symbol else path.parent), *symbol], db_file
    )
    if reason is None:
        assert outcome.ok, outcome.messages
    else:
        assert not outcome.ok and any(reason in m for m in outcome.messages), outcome.messages
