"""`batch analyze` on local Ray: one report per symbol, an index ranked by action and confidence,
and a rerun that analyses only what is missing (the real pipeline, a scripted LLM in each worker)."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from rich.console import Console
from sqlalchemy import func, select
from typer.testing import CliRunner

from stockdesk.coordinator.application.batch_analysis import (
    BatchAnalysisConfig,
    BatchAnalysisService,
    BatchRow,
    clean_symbols,
    rank,
)
from stockdesk.coordinator.infrastructure.persistence.models import ResearchSessionRow
from stockdesk.coordinator.presentation.cli.batch import run_batch
from stockdesk.entrypoints.batch.analyze_work import AnalyzeSymbolsWork
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.errors import BadRequestException, StockdeskError
from stockdesk.shared.tasks import JobStatus, RunBudget, TaskStatus
from stockdesk.shared.tasks.ray_engine import RayEngine
from tests.research.support import AS_OF, populate_store

SYMBOLS = ["600001.SH", "600002.SH", "600003.SH"]


def scripted_llm(settings: Settings, database: Database):  # type: ignore[no-untyped-def]
    """Each worker's LLM: the scripted answers by schema (imported by name in Ray workers)."""
    from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
    from tests.conftest import scripted_service
    from tests.coordinator.support import Router

    return scripted_service(ScriptedProvider([Router()]), database=database)


@pytest.fixture
def store_with_symbols(settings: Settings, database: Database) -> Database:
    database.upgrade()
    for symbol in SYMBOLS:
        populate_store(database, symbol)
    return database


def _config(out: Path, symbols: list[str] = SYMBOLS) -> BatchAnalysisConfig:
    return BatchAnalysisConfig(symbols=symbols, as_of=AS_OF, out_dir=str(out.resolve()))


def _sessions(database: Database) -> int:
    with database.session() as db:
        return int(db.scalar(select(func.count()).select_from(ResearchSessionRow)) or 0)


def test_a_batch_writes_one_report_per_symbol_and_a_ranked_index(
    settings: Settings, store_with_symbols: Database, ray_local: None, tmp_path: Path
) -> None:
    service = BatchAnalysisService(SqlTaskStore(store_with_symbols))
    config = _config(tmp_path / "runs")
    work = AnalyzeSymbolsWork(settings, config, llm=scripted_llm)
    counts = run_batch(service, config, work, RayEngine(2), console=Console(quiet=True))
    assert (counts.done, counts.failed) == (3, 0)
    out = tmp_path / "runs"
    reports = sorted(p.name for p in out.glob("*.html") if p.name != "index.html")
    assert reports == [f"{s}-{AS_OF.isoformat()}.html" for s in SYMBOLS]
    index = (out / "index.html").read_text()
    for name in reports:
        assert f'href="{name}"' in index
    job, _ = service.open(config)
    rows = service.rows(job.id)
    assert [r.status for r in rows] == ["done"] * 3 and all(r.session_id for r in rows)
    assert all(r.action in ("BUY", "HOLD", "SELL") for r in rows)
    assert rows == rank(rows)
    assert _sessions(store_with_symbols) == 3  # each worker wrote its session to the shared database


def test_running_the_same_batch_again_analyses_only_the_missing_symbols(
    settings: Settings, store_with_symbols: Database, ray_local: None, tmp_path: Path
) -> None:
    service = BatchAnalysisService(SqlTaskStore(store_with_symbols))
    config = _config(tmp_path / "runs")
    work = AnalyzeSymbolsWork(settings, config, llm=scripted_llm)
    # a budget of one token stops the batch after the first analysis: a batch cut short midway
    run_batch(
        service, config, work, RayEngine(1), budget=RunBudget(max_tokens=1), console=Console(quiet=True)
    )
    job, _ = service.open(config)
    assert service.job(job.id).status is JobStatus.STOPPED  # type: ignore[union-attr]
    first = {
        t.key: t.result["session_id"] for t in SqlTaskStore(store_with_symbols).tasks(job.id, TaskStatus.DONE)
    }  # type: ignore[index]
    assert len(first) == 1 and _sessions(store_with_symbols) == 1
    index = (tmp_path / "runs" / "index.html").read_text()
    assert "1 of 3 symbols analysed" in index
    run_batch(service, config, work, RayEngine(2), console=Console(quiet=True))
    assert service.counts(job.id).done == 3
    assert _sessions(store_with_symbols) == 3  # the finished symbol was not analysed again
    rows = {r.symbol: r.session_id for r in service.rows(job.id)}
    assert all(rows[s] == first[s] for s in first)
    assert "3 of 3 symbols analysed" in (tmp_path / "runs" / "index.html").read_text()


def test_a_symbol_that_cannot_be_analysed_fails_alone_with_its_error(
    settings: Settings, store_with_symbols: Database, ray_local: None, tmp_path: Path
) -> None:
    service = BatchAnalysisService(SqlTaskStore(store_with_symbols))
    config = _config(tmp_path / "runs", [*SYMBOLS[:2], "NOPE.SH"])
    work = AnalyzeSymbolsWork(settings, config, llm=scripted_llm)
    counts = run_batch(service, config, work, RayEngine(2), max_attempts=1, console=Console(quiet=True))
    assert (counts.done, counts.failed) == (2, 1)
    job, _ = service.open(config)
    failed = next(r for r in service.rows(job.id) if r.symbol == "NOPE.SH")
    assert failed.status == "failed" and failed.error and "NOPE.SH" in failed.error
    assert service.rows(job.id)[-1].symbol == "NOPE.SH"  # symbols without a verdict rank last
    assert "NOPE.SH" in (tmp_path / "runs" / "index.html").read_text()


def test_the_index_ranks_buys_then_holds_then_sells_each_by_confidence() -> None:
    rows = [
        BatchRow(symbol="A", status="done", action="SELL", confidence=0.9),
        BatchRow(symbol="B", status="done", action="BUY", confidence=0.4),
        BatchRow(symbol="C", status="failed", error="boom"),
        BatchRow(symbol="D", status="done", action="BUY", confidence=0.7),
        BatchRow(symbol="E", status="done", action="HOLD", confidence=0.5),
    ]
    assert [r.symbol for r in rank(rows)] == ["D", "B", "E", "A", "C"]


def test_symbols_are_cleaned_and_an_empty_list_is_a_one_line_error() -> None:
    assert clean_symbols([" 600001.sh", "AAPL", "aapl", ""]) == ["600001.SH", "AAPL"]
    with pytest.raises(BadRequestException, match="no symbols given"):
        clean_symbols([" ", ""])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--symbols", "600001.SH", "--universe", "u.txt"], "exactly one of --symbols or --universe"),
        (["--symbols", "600001.SH,NOPE.SH"], "not in the store: NOPE.SH"),
        (["--universe", "missing.txt"], "--universe: no such file"),
        (["--symbols", " , "], "no symbols given"),
    ],
    ids=["two-sources", "unknown-symbol", "missing-universe", "empty"],
)
def test_bad_batch_input_is_refused_before_any_engine_starts(
    cli_app: typer.Typer, store_with_symbols: Database, tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "u.txt").write_text("600001.SH\n")
    result = CliRunner().invoke(
        cli_app, ["batch", "analyze", *args, "--as-of", AS_OF.isoformat(), "--out", str(tmp_path / "runs")]
    )
    assert result.exit_code != 0
    assert isinstance(result.exception, StockdeskError) and message in result.exception.message
    assert result.exception.http_status in (400, 404)  # exit 2 through main()
    assert not (tmp_path / "runs" / "index.html").exists()
