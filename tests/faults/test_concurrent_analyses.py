"""Analyses at once, on different symbols and on the same one: threads through one coordinator
service, and two `stockdesk analyze` processes on one SQLite file. No lost or mixed rows: each
session has exactly its own expert results, node executions and audited LLM calls."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sqlalchemy import text

from stockdesk.coordinator.application import ExpertName, ResearchRequest, ResearchSession, SessionStatus
from stockdesk.llm_platform.application.llm_service import active_run_id
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.coordinator.support import AS_OF, SYMBOL, Router, pipeline
from tests.faults.processes import ModelServer, subprocess_env
from tests.research.support import populate_store

OTHER = "600002.SH"
CALLS = 7  # three experts, bull, bear, resolution, judge
NODES = {e.value for e in ExpertName} | {"aggregator_node", "debate_node", "judge_node"}


class AttributingRouter(Router):
    """Answers by schema (Router) and notes, per call, the run it ran under and the symbols it was shown."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str | None, frozenset[str]]] = []
        self._seen_lock = threading.Lock()

    def __call__(self, request: CompletionRequest) -> str:
        prompt = " ".join(m.content or "" for m in request.messages)
        with self._seen_lock:
            self.seen.append((active_run_id(), frozenset(s for s in (SYMBOL, OTHER) if s in prompt)))
        return super().__call__(request)


def rows_by_run(database: Database, table: str, column: str) -> dict[str, int]:
    with database.engine.connect() as conn:
        found = conn.execute(text(f"SELECT {column}, count(*) FROM {table} GROUP BY {column}"))
        return {str(run): int(n) for run, n in found}


def check_isolated(database: Database, sessions: list[ResearchSession]) -> None:
    """Every session whole and alone: its own nodes and LLM calls, nothing unattributed."""
    ids = {s.id for s in sessions}
    assert len(ids) == len(sessions)
    assert rows_by_run(database, "llm_calls", "run_id") == {s.id: CALLS for s in sessions}
    assert rows_by_run(database, "research_node_executions", "session_id") == {
        s.id: len(NODES) for s in sessions
    }
    for session in sessions:
        assert session.status is SessionStatus.COMPLETED, session.errors
        assert session.llm_calls == CALLS and {n.node for n in session.nodes} == NODES
        assert {r["symbol"] for r in session.expert_results.values()} == {session.symbol}


def test_threads_on_two_symbols_and_on_the_same_symbol_keep_their_rows_apart(settings: Settings) -> None:
    router = AttributingRouter()
    container, _, _ = pipeline(settings, router)
    populate_store(container.database, OTHER)
    service = container.coordinator.service
    symbols = [SYMBOL, OTHER, SYMBOL, OTHER]
    with ThreadPoolExecutor(len(symbols)) as pool:
        sessions = list(pool.map(lambda s: service.run(ResearchRequest(symbol=s, as_of=AS_OF)), symbols))

    assert [s.symbol for s in sessions] == symbols
    stored = [service.get(s.id) for s in sessions]
    check_isolated(container.database, stored)
    symbol_of = {s.id: s.symbol for s in sessions}
    assert len(router.seen) == CALLS * len(symbols)
    for run_id, shown in router.seen:  # each prompt was about its own session's symbol only
        assert run_id in symbol_of and shown <= {symbol_of[run_id]}
    assert sum(1 for _run, shown in router.seen if shown) >= 3 * len(symbols)


def test_two_cli_processes_on_the_same_symbol_write_two_whole_sessions(
    database: Database, tmp_path: Path
) -> None:
    populate_store(database, SYMBOL)
    # a process has at most three calls in flight (its experts): the fourth proves both are mid-analysis
    server = ModelServer(tmp_path).start(gather=4)
    env = subprocess_env(
        STOCKDESK_LLM_BASE_URL=server.url, STOCKDESK_LLM_MODEL="fake-model", STOCKDESK_LLM_API_KEY_ENV=""
    )
    try:
        reports = [tmp_path / f"report-{i}.json" for i in range(2)]
        command = [sys.executable, "-m", "stockdesk", "analyze", SYMBOL, "--as-of", AS_OF.isoformat()]
        children = [
            subprocess.Popen(
                [*command, "--out", str(report)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for report in reports
        ]
        for child in children:
            _out, err = child.communicate(timeout=120)
            assert child.returncode == 0, err
    finally:
        server.kill()
    sessions = [ResearchSession.model_validate(json.loads(r.read_text(encoding="utf-8"))) for r in reports]
    check_isolated(database, sessions)
    assert len(server.requests()) == 2 * CALLS
