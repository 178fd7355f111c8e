"""`stockdesk analyze`: the live run, the report files, and one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.shared.config import Settings
from stockdesk.shared.errors import StockdeskError
from tests.coordinator.support import AS_OF, SYMBOL, Router, pipeline
from tests.entrypoints.test_cli import stockdesk


@pytest.fixture
def app_with_pipeline(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> tuple[typer.Typer, Router]:
    container, router, _ = pipeline(settings)
    monkeypatch.setattr(entry, "_container", container)
    return entry.app, router


def analyze(app: typer.Typer, *args: str):
    return CliRunner().invoke(app, ["analyze", SYMBOL, "--as-of", AS_OF.isoformat(), *args])


@pytest.mark.parametrize("suffix", ["md", "html", "json"])
def test_analyze_writes_the_report_in_the_format_of_its_suffix(
    app_with_pipeline: tuple[typer.Typer, Router], tmp_path: Path, suffix: str
) -> None:
    app, _ = app_with_pipeline
    out = tmp_path / f"report.{suffix}"
    result = analyze(app, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert f"report written to {out.resolve()}" in result.output
    assert "LLM calls 7" in result.output  # the live counter: 3 experts (2 found no news) + 4
    body = out.read_text(encoding="utf-8")
    if suffix == "json":
        session = json.loads(body)
        assert session["status"] == "completed" and session["verdict"]["action"] == "HOLD"
        assert set(session["expert_results"]) == {
            "valuation_modeler", "technical_analyst", "financial_auditor", "macro_intelligence",
            "catalyst_detective",
        }  # fmt: skip
    else:
        assert "HOLD" in body and "financial_auditor" in body and "估值回落" in body


def test_analyze_prints_the_report_and_respects_experts_and_skip_debate(
    app_with_pipeline: tuple[typer.Typer, Router],
) -> None:
    app, router = app_with_pipeline
    result = analyze(app, "--experts", "technical,financial", "--skip-debate")
    assert result.exit_code == 0, result.output
    assert sorted(router.calls) == ["FinancialAuditOutput", "TechnicalAnalysisOutput"]
    assert "technical_analyst" in result.output and "skipped" in result.output


def test_bad_input_is_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    out = tmp_path / "report.txt"
    bad_suffix = stockdesk("analyze", "600519.SH", "--out", str(out))
    assert bad_suffix.returncode == 2 and "report.txt" in bad_suffix.stderr
    assert len(bad_suffix.stderr.strip().splitlines()) == 1 and not out.exists()
    bad_expert = stockdesk("analyze", "600519.SH", "--experts", "astrology")
    assert bad_expert.returncode == 2 and "unknown expert 'astrology'" in bad_expert.stderr
    unknown = stockdesk("analyze", "999999.SH")
    assert unknown.returncode == 2 and "999999.SH" in unknown.stderr


def test_retry_reruns_a_sessions_failed_expert_on_the_command_line(
    app_with_pipeline: tuple[typer.Typer, Router], tmp_path: Path
) -> None:
    """`stockdesk retry SESSION` does what REST's retry does: only the failed expert calls the
    (scripted) model again, the rest is reused, and the new session names its parent."""
    app, router = app_with_pipeline
    router.broken = {"TechnicalAnalysisOutput"}
    first = json.loads(_written(analyze(app, "--out", str(tmp_path / "first.json")), tmp_path / "first.json"))
    assert first["status"] == "partial" and "technical_analyst" in first["expert_errors"]
    router.broken, router.calls[:] = set(), []
    out = tmp_path / "retried.json"
    retried = json.loads(_written(CliRunner().invoke(app, ["retry", first["id"], "--out", str(out)]), out))
    assert retried["parent_session_id"] == first["id"] and retried["status"] == "completed"
    assert router.count("TechnicalAnalysisOutput") == 1 and router.count("ValuationModelOutput") == 0
    assert retried["expert_results"]["valuation_modeler"] == first["expert_results"]["valuation_modeler"]
    again = CliRunner().invoke(app, ["retry", retried["id"]])
    assert isinstance(again.exception, StockdeskError) and again.exception.code == "NOTHING_TO_RETRY"
    assert again.exception.http_status == 400  # `main` prints it on one line, exit 2


def _written(result, out: Path) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    assert f"report written to {out.resolve()}" in result.output
    return out.read_text(encoding="utf-8")


def test_retry_of_an_unknown_session_is_one_line_and_exit_2() -> None:
    result = stockdesk("retry", "no-such-session")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "no-such-session" in lines[0]
