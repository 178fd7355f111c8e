"""`stockdesk paper` on the command line over the real rules path (the coordinator's rules-only
verdicts): the verdicts go to the ledger once, named by the book; the report files; one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.paper.market import DAYS, A, B, C, populate


@pytest.fixture
def container(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> AppContainer:
    app = AppContainer(settings)
    populate(app.database)
    monkeypatch.setattr(entry, "_container", app)
    return app


def stockdesk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=120,
    )


def run(*args: str) -> str:
    result = CliRunner().invoke(entry.app, ["paper", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_steps_feed_the_ledger_once_and_show_writes_the_report(
    container: AppContainer, tmp_path: Path
) -> None:
    assert "opened" in run(
        "open", "desk", "--capital", "1000000", "--market", "CN", "--symbols", f"{A},{B},{C}"
    )
    run("step", "desk", "--as-of", DAYS[10].isoformat())
    run("step", "desk", "--as-of", DAYS[11].isoformat())
    book = container.paper.service.get("desk")
    named = [e for e in container.ledger.service.entries() if e.entry_id.startswith(f"paper-{book.id}-")]
    assert sorted(e.entry_id for e in named) == sorted(
        f"paper-{book.id}-{s}-{d.isoformat()}" for s in (A, B, C) for d in DAYS[10:12]
    )
    assert {e.mode for e in named} == {"rules"}
    stored = {(v.symbol, v.action) for v in container.paper.store.verdicts(book.id, DAYS[11])}
    assert stored == {(e.symbol, e.action) for e in named if e.as_of == DAYS[11]}

    assert "nothing to step" in run("step", "desk", "--as-of", DAYS[11].isoformat())
    assert len(container.ledger.service.entries()) == len(named)  # a re-run enters nothing twice

    data = json.loads(run("show", "desk", "--json"))
    assert [m["day"] for m in data["marks"]] == [d.isoformat() for d in DAYS[10:12]]
    run("show", "desk", "--out", str(tmp_path / "desk.html"))
    html = (tmp_path / "desk.html").read_text(encoding="utf-8")
    assert html.count("<svg") == 1 and "Paper book desk" in html
    assert "desk\tCN" in run("list")
    assert "closed" in run("close", "desk")
    closed = stockdesk("paper", "step", "desk")
    assert closed.returncode == 2 and "is closed" in closed.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "nope"), "no paper book named 'nope'"),
        (("open", "x", "--market", "CN", "--symbols", "999999.SH"), "not in the store: 999999.SH"),
        (("open", "x", "--market", "XX", "--symbols", A), "market must be one of CN, US"),
        (("show", "x", "--out", "b.csv"), "use .json, .html or .pdf"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    container: AppContainer, args: tuple[str, ...], message: str
) -> None:
    result = stockdesk("paper", *args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not result.stdout


def test_a_book_opened_over_a_watchlist_takes_its_symbols_and_names_it(container: AppContainer) -> None:
    container.portfolio.watchlists.add("core", [B, A])
    assert "2 symbols" in run("open", "wl", "--market", "CN", "--watchlist", "core")
    book = container.paper.service.get("wl")
    assert (book.symbols, book.watchlist) == ([B, A], "core")
    container.portfolio.watchlists.add("core", [C])  # a later change of the list leaves the book as opened
    assert container.paper.service.get("wl").symbols == [B, A]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("open", "w1", "--watchlist", "nope"), "no watchlist named 'nope'"),
        (("open", "w2", "--watchlist", "core", "--symbols", A), "the symbols or a watchlist, not both"),
    ],
)
def test_a_watchlist_book_refuses_a_missing_list_or_both_inputs_in_one_line(
    container: AppContainer, args: tuple[str, ...], message: str
) -> None:
    container.portfolio.watchlists.add("core", [A])
    result = stockdesk("paper", *args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert container.paper.service.list() == []
