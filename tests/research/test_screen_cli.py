"""`stockdesk screen` as a user runs it: CSV content, sorting, universe files, one-line errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from stockdesk.research.domain.dtos.screen import OUTPUT_COLUMNS
from stockdesk.shared.db import Database
from stockdesk.shared.errors import StockdeskError
from tests.entrypoints.test_cli import one_error_line, stockdesk
from tests.research import screen_store

DAY = screen_store.AS_OF.isoformat()


@pytest.fixture
def store(database: Database) -> Database:
    screen_store.populate(database)
    return database


def run(cli_app: typer.Typer, *args: str):
    return CliRunner().invoke(cli_app, ["screen", *args])


def read_csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_writes_the_matches_as_csv_and_says_how_many_matched(
    cli_app: typer.Typer, store: Database, tmp_path: Path
) -> None:
    out = tmp_path / "screens" / "s.csv"
    result = run(cli_app, "--universe", "all", "--as-of", DAY, "--where", "bars >= 100", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "4 of 6 symbols matched" in result.output  # 421 (cut to the window), 300, 100, 250 bars
    rows = read_csv(out)
    assert list(rows[0]) == list(OUTPUT_COLUMNS)
    assert [r["symbol"] for r in rows] == ["000006.SZ", "600001.SH", "600004.SH", "AAPL"]  # by symbol
    a_share = rows[1]
    assert (a_share["name"], a_share["market"], a_share["latest_period"]) == ("甲公司", "CN", "2024Q1")
    assert a_share["pe_percentile"].isdigit() and a_share["bars"].isdigit()  # whole numbers, no ".0"
    assert rows[2]["pe_ttm"] == "" and rows[2]["ma250"] == ""  # 600004.SH: no valuations, 100 bars
    assert not list(out.parent.glob("*.tmp"))  # written through a temp file, then renamed


def test_a_filter_matching_nothing_says_where_its_fields_lie(cli_app: typer.Typer, store: Database) -> None:
    result = run(cli_app, "--as-of", DAY, "--where", "bars > 100000 and bars < 100001")
    assert result.exit_code == 0, result.output
    # the six symbols hold 0 (no bars) .. 421 bars (see the test above): the range, once per field
    assert "0 of 6 symbols matched (among them: bars " in " ".join(result.output.split())
    assert result.output.count("bars ") == 1


def test_sort_descending_and_limit_keep_the_top_rows(cli_app: typer.Typer, store: Database) -> None:
    result = run(cli_app, "--as-of", DAY, "--sort=-bars", "--limit", "2", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert (payload["matched"], payload["screened"]) == (6, 6)  # limit cuts the rows, not the count
    # 600001.SH: the weekdays of the technical window 2022-12-26 (as_of - 550 days) .. 2024-06-28
    assert [(r["symbol"], r["bars"]) for r in payload["rows"]] == [("600001.SH", 395), ("AAPL", 300)]


def test_missing_figures_sort_last_and_are_null_in_json(cli_app: typer.Typer, store: Database) -> None:
    payload = json.loads(run(cli_app, "--as-of", DAY, "--sort", "pe_ttm", "--json").output)
    pe = [r["pe_ttm"] for r in payload["rows"]]
    numbers = [p for p in pe if p is not None]
    assert numbers == sorted(numbers) and pe[len(numbers) :] == [None] * (len(pe) - len(numbers))
    assert len(numbers) == 2  # 600001.SH and AAPL; 000002.SZ's PE is negative, the rest have none


def test_the_screens_csv_feeds_back_as_a_universe(
    cli_app: typer.Typer, store: Database, tmp_path: Path
) -> None:
    first = tmp_path / "first.csv"
    assert run(cli_app, "--as-of", DAY, "--where", "ma20 > 0", "--out", str(first)).exit_code == 0
    chosen = [r["symbol"] for r in read_csv(first)]
    assert len(chosen) == 5  # all but 300003.SZ, which has no bars
    again = tmp_path / "again.csv"
    result = run(
        cli_app, "--universe", str(first), "--as-of", DAY, "--where", "close > 0", "--out", str(again)
    )
    assert result.exit_code == 0, result.output
    assert f"{len(chosen)} of {len(chosen)} symbols matched" in result.output
    assert [r["symbol"] for r in read_csv(again)] == chosen


def test_a_universe_file_with_unknown_symbols_screens_the_known_ones(
    cli_app: typer.Typer, store: Database, tmp_path: Path
) -> None:
    universe = tmp_path / "u.txt"
    universe.write_text("# my list\naapl\n600001\nNOPE\n", encoding="utf-8")
    payload = json.loads(run(cli_app, "--universe", str(universe), "--as-of", DAY, "--json").output)
    assert [r["symbol"] for r in payload["rows"]] == ["600001.SH", "AAPL"]  # other spellings resolved
    assert payload["unknown"] == ["NOPE"] and payload["screened"] == 2


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--as-of", "2024-02-30"], "2024-02-30"),
        (["--where", "roe >"], "not a valid expression"),
        (["--where", "roee > 5"], "unknown field 'roee'"),
        (["--where", "len(roe) > 5"], "a function call"),
        (["--sort", "nothing"], "--sort: unknown column 'nothing'"),
        (["--limit", "0"], "--limit must be at least 1"),
        (["--universe", "missing.csv"], "missing.csv"),
    ],
)
def test_bad_input_is_one_clear_line(
    cli_app: typer.Typer, store: Database, args: list[str], words: str
) -> None:
    result = run(cli_app, *args)
    assert isinstance(result.exception, StockdeskError), result.output  # `main` prints it, exit 2
    assert words in result.exception.message and "\n" not in result.exception.message
    assert result.exception.http_status == 400


def test_an_empty_store_says_to_load_data(cli_app: typer.Typer, database: Database) -> None:
    result = run(cli_app, "--as-of", DAY)
    assert isinstance(result.exception, StockdeskError)
    assert "stockdesk data load-sample" in result.exception.message


def test_the_command_exits_2_with_one_line_for_a_refused_expression() -> None:
    result = stockdesk("screen", "--as-of", DAY, "--where", "__import__('os').system('echo hacked') > 0")
    assert result.returncode == 2
    line = one_error_line(result)
    assert line.startswith("error: --where: a function call is not allowed") and "hacked" not in result.stdout


DEEP_WHERE = {
    "3000-nots": "not " * 3000 + "roe > 5",
    "10000-minuses": "-" * 10000 + "roe > 5",
    "12000-term-sum": " + ".join(["roe"] * 12000) + " > 5",
}


@pytest.mark.parametrize("where", DEEP_WHERE.values(), ids=DEEP_WHERE.keys())
def test_the_probes_deep_expressions_are_refused_in_one_line_with_exit_2(where: str) -> None:
    """They ended in RecursionError or MemoryError (exit 1): now refused before anything parses."""
    result = stockdesk("screen", "--as-of", DAY, "--where", where)
    assert result.returncode == 2, result.stderr[-500:]
    line = one_error_line(result)
    assert line.startswith("error: --where: the expression has") and "at most 1,000" in line
    assert "Recursion" not in result.stderr and "MemoryError" not in result.stderr
