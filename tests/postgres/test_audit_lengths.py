"""Audit rows keep text a model or provider chose even when it is longer than its column: PostgreSQL
refuses an over-long String(n) value (and the audit would be lost), so it is cut to fit on both."""

from __future__ import annotations

from stockdesk.llm_platform.domain.dtos import LLMCallRecord, ToolCallRecord
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.shared.db import Database
from stockdesk.web_search.domain.search import SearchCallRecord
from stockdesk.web_search.infrastructure.persistence.repositories import SqlSearchStore
from tests.postgres.both import sqlite_and_postgres  # noqa: F401


def test_over_long_tool_names_ids_and_models_are_stored_cut_to_their_columns(database: Database) -> None:
    audit = SqlLLMStore(database)
    name = "get_" + "very_" * 30 + "long_hallucinated_tool"  # a model made this one up
    asked = {"id": "call_1", "name": name, "arguments": {}}
    audit.record(
        LLMCallRecord(run_id="r1", caller="c", alias="a", provider="p", model="m" * 250, prompt_hash="h",
                      status="ok", call_id="c" * 32, tool_calls=[asked])
    )  # fmt: skip
    long_id = "call_" + "x" * 80  # a provider's id longer than the column
    audit.record_tools(
        [
            ToolCallRecord(
                call_id="c" * 32, tool_call_id="call_1", name=name, status="error", error="unknown"
            ),
            ToolCallRecord(call_id="c" * 32, tool_call_id=long_id, name="f", status="ok"),
        ]
    )
    [call] = audit.recent()
    assert call.model == "m" * 199 + "…"
    [tool] = call.tool_calls
    assert (tool.name, tool.status, tool.error) == (name, "error", "unknown")  # asked: kept whole (JSON)
    [record] = audit.list_for_run("r1")
    assert record.tool_calls == [asked]
    with database.engine.connect() as conn:
        stored = conn.exec_driver_sql("SELECT tool_call_id, name FROM llm_tool_calls ORDER BY id").all()
    assert [tuple(row) for row in stored] == [("call_1", name[:63] + "…"), (long_id[:63] + "…", "f")]


def test_an_over_long_search_provider_name_is_stored_cut(database: Database) -> None:
    audit = SqlSearchStore(database)
    audit.record(
        SearchCallRecord(provider="p" * 60, query="q", freshness="week", count=5, status="ok", latency_ms=1.0,
                         result_count=0)
    )  # fmt: skip
    [record] = audit.recent()
    assert record.provider == "p" * 39 + "…"
