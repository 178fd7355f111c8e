"""`stockdesk search`: the Done-when command on a news file in the real Nasdaq layout, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from stockdesk.shared.errors import StockdeskError
from tests.entrypoints.test_cli import stockdesk

NASDAQ = Path(__file__).parents[1] / "data_engineering" / "fixtures" / "news" / "nasdaq_XMPL_news.csv"


def run(cli_app: typer.Typer, *args: str):
    return CliRunner().invoke(cli_app, list(args))


def test_local_search_is_point_in_time_newest_first_without_duplicates(cli_app: typer.Typer) -> None:
    assert run(cli_app, "data", "import", "news-csv", str(NASDAQ), "--symbol", "XMPL").exit_code == 0
    everything = json.loads(
        run(cli_app, "search", "widget", "--symbol", "XMPL", "--json", "--count", "50").output
    )
    assert everything["provider"] == "local" and everything["items"], everything
    dates = sorted(i["published_date"] for i in everything["items"])
    cutoff = dates[len(dates) // 2][:10]  # an as-of date in the middle of the file
    result = run(
        cli_app, "search", "widget", "--symbol", "XMPL", "--provider", "local", "--as-of", cutoff, "--json"
    )
    assert result.exit_code == 0, result.output
    items = json.loads(result.output)["items"]
    published = [i["published_date"] for i in items]
    assert items and all(p[:10] <= cutoff for p in published)  # nothing after the as-of date
    assert published == sorted(published, reverse=True)  # newest first
    assert len({i["url"] for i in items}) == len(items) and all(i["title"].strip() for i in items)
    assert len(items) < len(everything["items"])


def test_table_output_and_an_empty_result(cli_app: typer.Typer) -> None:
    result = run(cli_app, "search", "nothing-matches-this", "--provider", "local")
    assert result.exit_code == 0 and "no results" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--freshness", "oneDecade"], "--freshness must be one of"),
        (["--count", "0"], "--count must be between 1 and 50"),
        (["--as-of", "2024-02-30"], "2024-02-30"),
        (["--provider", "google"], "unknown search provider 'google'"),
        (["--provider", "bocha"], "$BOCHA_API_KEY"),
        (["--provider", "tavily"], "$TAVILY_API_KEY"),
        (["--provider", "searxng"], "SEARXNG_URL"),
    ],
)
def test_bad_input_is_a_clear_error(cli_app: typer.Typer, args: list[str], message: str) -> None:
    result = run(cli_app, "search", "iphone", *args)
    assert isinstance(result.exception, StockdeskError), result.output  # `main` prints it as one line
    assert message in result.exception.message and "\n" not in result.exception.message


def test_missing_key_is_one_line_naming_the_variable_and_exit_2() -> None:
    result = stockdesk("search", "iphone", "--provider", "bocha")
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "$BOCHA_API_KEY" in lines[0] and lines[0].startswith("error:"), result.stderr
