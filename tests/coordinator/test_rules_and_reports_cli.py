"""`analyze --rules-only` (no LLM), `analyze --samples`, `stockdesk sessions` and `stockdesk report`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.shared.config import Settings
from tests.coordinator.support import AS_OF, SYMBOL, Router, pipeline


@pytest.fixture
def app_with_pipeline(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> tuple[typer.Typer, Router]:
    container, router, _ = pipeline(settings)
    monkeypatch.setattr(entry, "_container", container)
    return entry.app, router


def run(app: typer.Typer, *args: str):
    return CliRunner().invoke(app, list(args))


def test_rules_only_makes_no_llm_call_and_gives_a_verdict_plan_and_code_signals(
    app_with_pipeline: tuple[typer.Typer, Router], tmp_path: Path
) -> None:
    app, router = app_with_pipeline
    out = tmp_path / "rules.json"
    result = run(app, "analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--rules-only", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert router.calls == [] and "0 LLM calls" in result.output
    session = json.loads(out.read_text(encoding="utf-8"))
    verdict = session["verdict"]
    assert verdict["source"] == "rules" and verdict["action"] in {"BUY", "SELL", "HOLD"}
    plan = verdict["trade_plan"]
    assert plan["entry_price"] > 0 and plan["stop_loss_price"] > 0 and plan["take_profit_price"] > 0
    assert session["llm_settings"] == {"rules_only": True}
    for name, expert in session["expert_results"].items():
        assert expert["code_signal"]["stance"] in {"bullish", "neutral", "bearish"}, name
    assert verdict["confidence"] <= 0.3 + 0.7 * verdict["support"]["share"] + 1e-9


def test_a_full_run_records_the_seed_and_bounds_the_confidence(
    app_with_pipeline: tuple[typer.Typer, Router], tmp_path: Path
) -> None:
    app, router = app_with_pipeline
    out = tmp_path / "full.json"
    result = run(app, "analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--samples", "3", "--out", str(out))
    assert result.exit_code == 0, result.output
    session = json.loads(out.read_text(encoding="utf-8"))
    verdict = session["verdict"]
    assert session["llm_settings"]["judge_samples"] == 3 and "seed" in session["llm_settings"]
    assert verdict["stability"]["samples"] == 3 and router.count("VerdictResult") == 3
    assert {"entry_price", "stop_loss_price", "take_profit_price", "risk_reward", "atr"} <= set(
        verdict["trade_plan"]
    )
    assert verdict["confidence"] <= 0.3 + 0.7 * verdict["support"]["share"] + 1e-9
    for expert in session["expert_results"].values():
        assert "code_signal" in expert


def test_report_re_renders_a_stored_session_in_any_format_without_llm_calls(
    app_with_pipeline: tuple[typer.Typer, Router], tmp_path: Path
) -> None:
    app, router = app_with_pipeline
    first = tmp_path / "first.json"
    assert run(app, "analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--out", str(first)).exit_code == 0
    session_id = json.loads(first.read_text(encoding="utf-8"))["id"]
    calls = len(router.calls)
    for suffix in ("md", "html", "json"):
        out = tmp_path / f"again.{suffix}"
        result = run(app, "report", session_id, "--out", str(out))
        assert result.exit_code == 0, result.output
        assert out.exists() and session_id in out.read_text(encoding="utf-8")
    assert len(router.calls) == calls
    again = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))
    assert again["verdict"] == json.loads(first.read_text(encoding="utf-8"))["verdict"]
    chinese = tmp_path / "zh.md"
    assert run(app, "report", session_id, "--out", str(chinese), "--lang", "zh").exit_code == 0
    text = chinese.read_text(encoding="utf-8")
    assert "研究报告" in text and "## 裁决" in text and "## Verdict" not in text
    assert "## Verdict" in (tmp_path / "again.md").read_text(encoding="utf-8")  # English by default


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "nope", "--out", "r.md"], "no research session nope"),
        (["report", "nope", "--out", "r.txt"], "cannot tell the report format"),
        (["sessions", "--since", "yesterday"], "YYYY-MM-DD"),
        (["report", "nope", "--out", "r.md", "--lang", "fr"], "unknown report language 'fr'"),
        (["analyze", SYMBOL, "--rules-only", "--lang", "de"], "unknown report language 'de'"),
    ],
)
def test_bad_input_is_a_one_line_error(
    app_with_pipeline: tuple[typer.Typer, Router], args: list[str], message: str
) -> None:
    result = run(app_with_pipeline[0], *args)
    assert result.exit_code != 0 and message in result.output + str(result.exception)


def test_sessions_lists_newest_first(app_with_pipeline: tuple[typer.Typer, Router], tmp_path: Path) -> None:
    app, _ = app_with_pipeline
    ids = []
    for n in range(2):
        out = str(tmp_path / f"{n}.json")
        result = run(app, "analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--rules-only", "--out", out)
        ids.append(result.output.split("session ")[1].split(":")[0])
    listing = run(app, "sessions", "--symbol", SYMBOL.lower())
    assert listing.exit_code == 0, listing.output
    assert listing.output.index(ids[1][:8]) < listing.output.index(ids[0][:8])
    assert "of 2 session(s)" in listing.output


def test_the_plan_has_prices_even_without_the_technical_expert(
    app_with_pipeline: tuple[typer.Typer, Router], tmp_path: Path
) -> None:
    """The trade plan reads the as-of prices from a technical snapshot built without the LLM."""
    app, router = app_with_pipeline
    out = tmp_path / "no-technical.json"
    experts = "valuation,financial"  # two experts with data: one alone is insufficient evidence
    args = ["analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--experts", experts, "--out", str(out)]
    assert run(app, *args).exit_code == 0
    verdict = json.loads(out.read_text(encoding="utf-8"))["verdict"]
    assert router.count("TechnicalAnalysisOutput") == 0
    assert verdict["trade_plan"]["entry_price"] > 0 and verdict["trade_plan"]["atr"] > 0
