"""Holdings-aware verdicts through the real pipeline (rules-only and the scripted LLM): a held
symbol's analysis shows the holder's action and a plan in lots, a non-holder's is unchanged, and
the holding is read point in time."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from pathlib import Path

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.coordinator.application.holdings import HoldingReader
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, SYMBOL, pipeline
from tests.portfolio.support import seed

URL = "/api/v1/coordinator/research"


@pytest.fixture
def app(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> tuple[typer.Typer, AppContainer]:
    container, _, _ = pipeline(settings)
    monkeypatch.setattr(entry, "_container", container)
    return entry.app, container


def analyze(app: typer.Typer, out: Path, *more: str) -> str:
    result = CliRunner().invoke(
        app, ["analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--rules-only", "--out", str(out), *more]
    )
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


def verdict_of(app: typer.Typer, tmp_path: Path, name: str, *more: str) -> dict:
    return json.loads(analyze(app, tmp_path / f"{name}.json", *more))["verdict"]


def same_report(text: str) -> str:
    """A Markdown report without what differs from run to run (session id, times, the ledger's
    count of entries, which grows by one with each run, and the session's node table)."""
    text = text[: text.rindex("\n## ")]  # the last section: the session's nodes in finishing order
    text = re.sub(r"^Track record:.*$", "", text, flags=re.MULTILINE)
    text = re.sub(r"[0-9a-f]{32}", "ID", text)
    text = re.sub(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?(\+00:00)?", "TIME", text)
    return re.sub(r"\d+(\.\d+)? ?s\b", "S", text)


def test_a_held_symbol_shows_the_holder_action_and_a_plan_in_lots(
    app: tuple[typer.Typer, AppContainer], tmp_path: Path
) -> None:
    cli, container = app
    alone = verdict_of(cli, tmp_path, "alone")
    assert alone["action"] == "HOLD" and alone["holding"] is None and alone["holder_plan"] is None
    # bought at 23: the holder's stop (cost - the plan's downside distance 2.00) is above the close 20
    container.portfolio.holdings.set(SYMBOL, 1000, 23.0, opened_at=date(2024, 1, 2))
    held = verdict_of(cli, tmp_path, "held")
    kept = ("action", "confidence", "position_percent", "trade_plan", "probability_up", "reasoning")
    assert {k: held[k] for k in kept} == {k: alone[k] for k in kept}  # the verdict itself is the same
    holding, plan = held["holding"], held["holder_plan"]
    assert holding["quantity"] == 1000 and holding["close"] == 20.0 and holding["lot_size"] == 100
    assert holding["unrealised_pnl"] == -3000.0 and holding["days_held"] == (AS_OF - date(2024, 1, 2)).days
    assert (plan["action"], plan["rule"], plan["shares"], plan["lots"]) == ("EXIT", "exit_stop", 1000, 10)
    assert (
        plan["stop"] == 21.0 and plan["stop_crossed"] and plan["estimated_cost"] == 16.0
    )  # 0.08% of 20,000 in 2024

    report = analyze(cli, tmp_path / "held.md")
    assert "## Your position" in report and "**For you as a holder: EXIT**" in report
    assert "1,000 shares (10 lots of 100)" in report and "21.00 CNY: crossed" in report
    chinese = analyze(cli, tmp_path / "held_zh.html", "--lang", "zh")
    assert "你的持仓" in chinese and "对持有者而言：清仓" in chinese and "10 手，每手 100 股" in chinese
    assert 'data-holder-action="EXIT"' in chinese


def test_a_non_holders_output_is_unchanged_and_ignore_holdings_analyses_as_not_held(
    app: tuple[typer.Typer, AppContainer], tmp_path: Path
) -> None:
    cli, container = app
    before = analyze(cli, tmp_path / "before" / "r.md")
    container.portfolio.holdings.set(SYMBOL, 1000, 23.0)
    ignored = analyze(cli, tmp_path / "ignored" / "r.md", "--ignore-holdings")
    assert "Your position" not in before and same_report(ignored) == same_report(before)
    session = json.loads(analyze(cli, tmp_path / "ignored.json", "--ignore-holdings"))
    assert session["verdict"]["holder_plan"] is None and session["llm_settings"]["ignore_holdings"] is True


def test_a_position_opened_today_is_locked_and_one_opened_later_is_not_held(
    app: tuple[typer.Typer, AppContainer], tmp_path: Path
) -> None:
    cli, container = app
    container.portfolio.holdings.set(SYMBOL, 1000, 23.0, opened_at=AS_OF)
    plan = verdict_of(cli, tmp_path, "today")["holder_plan"]
    assert (plan["action"], plan["shares"], plan["locked_shares"], plan["sellable_shares"]) == (
        "EXIT",
        0,
        1000,
        0,
    )
    assert "locked under T+1" in plan["reason"]
    container.portfolio.holdings.set(SYMBOL, 1000, 23.0, opened_at=AS_OF + timedelta(days=1))
    later = verdict_of(cli, tmp_path, "later")
    assert later["holding"] is None and later["holder_plan"] is None


def test_the_holding_is_read_point_in_time_and_the_future_changes_nothing(settings: Settings) -> None:
    container = AppContainer(settings)
    seed(container.database)  # four symbols, closes to 2024-06-28
    holdings = container.portfolio.holdings
    holdings.set("600001.SH", 300, 10.0, opened_at=date(2024, 3, 1))
    holdings.set("AAPL", 10, 150.0)
    day = date(2024, 4, 30)
    reader = HoldingReader(lambda: holdings)
    before = reader("600001.SH", day)
    assert before is not None and before.close_date == day
    # the future: wild closes after the date, for the held symbol and for the rest of the book
    later = pd.bdate_range(day + timedelta(days=1), date(2024, 6, 28))
    bars = pd.concat(
        pd.DataFrame({"symbol": s, "trade_date": later, "open": p, "high": p, "low": p, "close": p,
                      "volume": 1e6, "amount": 1e7, "adj_factor": 1.0})
        for s, p in (("600001.SH", 99.0), ("AAPL", 1.0))
    )  # fmt: skip
    MarketDataImportService(SqlMarketDataRepository(container.database)).import_frames("test", {"bars": bars})
    assert reader("600001.SH", date(2024, 6, 28)).close == 99.0  # the change is really in the store
    assert reader("600001.SH", day) == before
    assert before.book_value == pytest.approx(300 * before.close + 10 * (150.0 + 0.01 * 86))


def test_the_session_json_over_rest_carries_the_holding_and_the_holder_plan(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    container.portfolio.holdings.set(SYMBOL, 1000, 23.0)
    client = api_client(container)
    body = {
        "symbol": SYMBOL,
        "as_of": AS_OF.isoformat(),
        "experts": ["technical_analyst", "financial_auditor"],
    }
    run = client.post(URL, json=body)
    assert run.status_code == 200, run.text
    verdict = run.json()["verdict"]
    assert verdict["action"] in {"BUY", "HOLD", "SELL"} and verdict["holding"]["quantity"] == 1000
    assert verdict["holder_plan"]["action"] in {"ADD", "HOLD", "TRIM", "EXIT"}
    assert "你持有该标的" in verdict["input"]  # the LLM judge was told
    stored = client.get(f"{URL}/sessions/{run.json()['id']}").json()["verdict"]
    assert stored["holder_plan"] == verdict["holder_plan"]
    ignored = client.post(URL, json={**body, "ignore_holdings": True}).json()["verdict"]
    assert ignored["holding"] is None and "你持有该标的" not in ignored["input"]
