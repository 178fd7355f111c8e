"""One full `stockdesk analyze` on PostgreSQL: the sample store, the real experts, debate and judge
over a scripted LLM; the session is then read back whole from the database by a fresh engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.coordinator.application import ExpertName, ResearchSession, SessionStatus
from stockdesk.coordinator.infrastructure.persistence.session_repository import SqlResearchSessionRepository
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.coordinator.support import AS_OF, SYMBOL, pipeline


def test_analyze_stores_the_whole_session_in_postgresql(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert settings.effective_database_url.startswith("postgresql")
    container, router, _ = pipeline(settings, with_news=True)  # news: macro and catalyst search it
    monkeypatch.setattr(entry, "_container", container)
    out = tmp_path / "report.json"
    result = CliRunner().invoke(
        entry.app, ["analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    reported = ResearchSession.model_validate_json(out.read_text(encoding="utf-8"))
    assert reported.status is SessionStatus.COMPLETED and reported.verdict["action"] == "HOLD"
    assert set(reported.expert_results) == {e.value for e in ExpertName}
    assert reported.llm_calls == len(router.calls) == 9  # every expert read the stored news

    database = Database(settings.effective_database_url)  # a fresh engine: nothing cached in memory
    try:
        stored = SqlResearchSessionRepository(database).get(reported.id)
        assert stored is not None
        assert json.loads(stored.model_dump_json()) == json.loads(reported.model_dump_json())
        assert stored.started_at.utcoffset() is not None and stored.started_at == reported.started_at
        counts = {
            "llm_calls": "SELECT count(*) FROM llm_calls WHERE run_id = :id",
            "nodes": "SELECT count(*) FROM research_node_executions WHERE session_id = :id",
        }
        with database.engine.connect() as conn:
            found = {
                name: conn.execute(text(sql), {"id": reported.id}).scalar() for name, sql in counts.items()
            }
        assert found == {"llm_calls": 9, "nodes": len(reported.nodes)}
        page = SqlResearchSessionRepository(database).list(symbol=SYMBOL.lower())
        assert [item.id for item in page.items] == [reported.id] and page.items[0].action == "HOLD"
    finally:
        database.dispose()
