"""`stockdesk debate panel`: the spec's debate JSON and its audit file, tool calls in `llm calls`,
and one-line errors. The real container and store; the scripted model plays the experts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.debate.domain.dtos.panel import PanelArtifact
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.domain.dtos import ToolCall
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from tests.conftest import scripted_service
from tests.debate.panel_support import SYMBOL, PanelScript, seed_store, turn
from tests.entrypoints.test_cli import stockdesk

ROLES = ("fundamental", "risk", "growth", "sentiment")


@pytest.fixture
def app(settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> typer.Typer:
    container = AppContainer(settings)
    seed_store(container.database, tmp_path)
    script = PanelScript(
        expert=lambda role, rnd: turn("BUY", 0.6, ["C1"]),
        tools=lambda role, rnd: (
            [ToolCall(id="r1", name="get_news_list", arguments={"tickers": [SYMBOL], "keywords": ["plant"]})]
            if role == "risk" and rnd == 1
            else []
        ),
    )
    provider = ScriptedProvider([script])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    monkeypatch.setattr(entry, "_container", container)
    return entry.app


def test_the_panel_command_writes_the_spec_json_and_its_audit(app: typer.Typer, tmp_path: Path) -> None:
    out = tmp_path / "debates" / "d.json"
    result = CliRunner().invoke(
        app, ["debate", "panel", SYMBOL.lower(), "--date", "20240301", "--max-rounds", "3", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text("utf-8"))
    assert set(data) == {"ticker", "date", "rounds", "conclusion"}
    artifact = PanelArtifact.model_validate(data)
    assert artifact.ticker == SYMBOL and artifact.date == "20240301" and len(artifact.rounds) >= 2
    assert all(set(r) == {"round", *ROLES} for r in data["rounds"])
    assert "tool calls: 1" in result.output and "wrote" in result.output

    audit = json.loads((tmp_path / "debates" / "d.audit.json").read_text("utf-8"))
    risk = next(s for s in audit["steps"] if s["agent"] == "panel.risk" and s["round"] == 1)
    assert risk["tool_calls"][0]["name"] == "get_news_list" and risk["tool_calls"][0]["status"] == "ok"

    calls = CliRunner().invoke(app, ["llm", "calls", "--last", "50", "--json"])
    rows = [json.loads(line) for line in calls.output.splitlines()]
    with_tools = [r for r in rows if r["tool_calls"]]
    assert [r["purpose"] for r in with_tools] == ["debate.panel.risk"]
    assert with_tools[0]["tool_calls"][0]["arguments"] == {"tickers": [SYMBOL], "keywords": ["plant"]}
    assert {r["run_id"] for r in rows if r["purpose"].startswith("debate.panel")} == {audit["run_id"]}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--date", "2024-13-01", "--out", "d.json"], "'2024-13-01' is not a date (YYYY-MM-DD)"),
        (["--date", "2024-03-01", "--out", "d.txt"], "--out must end in .json, got 'd.txt'"),
        (["--date", "2024-03-01", "--out", "d.json", "--max-rounds", "1"], "--max-rounds"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    args = [str(tmp_path / a) if a.startswith("d.") else a for a in args]
    result = stockdesk("debate", "panel", SYMBOL, *args)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert not list(tmp_path.glob("d*.json"))


def test_a_symbol_with_nothing_to_debate_fails_in_one_line_before_any_model_call(tmp_path: Path) -> None:
    out = tmp_path / "d.json"
    result = stockdesk("debate", "panel", "NOPE", "--date", "2024-03-01", "--out", str(out))
    assert result.returncode == 2
    assert "nothing to debate: no news, prices or filings of NOPE up to 2024-03-01" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not out.exists()
