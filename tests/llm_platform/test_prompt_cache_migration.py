"""Migration 0015: a database from before it keeps its audit rows, which read as "unknown" (NULL)
evaluated / cached prompt tokens, and takes the new counts for new calls; the downgrade removes them."""

from __future__ import annotations

from datetime import UTC, datetime

from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from stockdesk.llm_platform.domain.dtos import LLMCallRecord
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.shared.db import Database

REVISION = "0015_llm_prompt_cache_tokens"
NEW_COLUMNS = {"prompt_tokens_evaluated", "prompt_tokens_cached"}
OLD_ROW = (
    "INSERT INTO llm_calls (created_at, run_id, caller, alias, provider, model, prompt_hash, prompt_tokens,"
    " completion_tokens, latency_seconds, status, tags, call_id, tool_calls) VALUES (:at, 'old-run',"
    " 'research.technical_analyst', 'local', 'local', 'qwen', 'abc', 900, 120, 31.5, 'ok', '[]', 'c1', '[]')"
)


def llm_call_columns(database: Database) -> set[str]:
    return {c["name"] for c in inspect(database.engine).get_columns("llm_calls")}


def test_an_old_database_upgrades_and_its_rows_read_as_unknown(database: Database) -> None:
    config = database._alembic_config()
    before = ScriptDirectory.from_config(config).get_revision(REVISION).down_revision
    assert isinstance(before, str)
    command.upgrade(config, before)
    assert not NEW_COLUMNS & llm_call_columns(database)
    with database.engine.begin() as conn:
        conn.execute(text(OLD_ROW), {"at": datetime(2026, 11, 1, tzinfo=UTC)})

    assert database.upgrade() == database.head_revision()
    assert llm_call_columns(database) >= NEW_COLUMNS
    audit = SqlLLMStore(database)
    audit.record(
        LLMCallRecord(
            run_id="new-run",
            caller="research.valuation_modeler",
            alias="local",
            provider="local",
            model="qwen",
            prompt_hash="def",
            prompt_tokens=1000,
            completion_tokens=100,
            prompt_tokens_evaluated=380,
            prompt_tokens_cached=620,
            status="ok",
        )
    )
    new, old = audit.recent(2)
    assert (old.run_id, old.prompt_tokens, old.completion_tokens) == ("old-run", 900, 120)
    assert old.prompt_tokens_evaluated is None and old.prompt_tokens_cached is None
    assert (new.prompt_tokens_evaluated, new.prompt_tokens_cached) == (380, 620)
    assert [r.prompt_tokens_cached for r in audit.list_for_run("new-run")] == [620]

    command.downgrade(config, before)
    assert not NEW_COLUMNS & llm_call_columns(database)
    with database.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM llm_calls")).scalar_one() == 2
