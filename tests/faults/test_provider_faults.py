"""5xx and timeouts from a real HTTP model server: retried (the server counts the attempts), then
degraded: the expert fails cleanly (session partial) or the configured fallback alias answers."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from stockdesk.coordinator.application import ResearchRequest, ResearchSession, SessionStatus
from stockdesk.entrypoints.container import AppContainer
from tests.coordinator.support import AS_OF, SYMBOL
from tests.faults.processes import ModelServer
from tests.faults.support import alias, desk, remote_settings

TECHNICAL = "TechnicalAnalysisOutput"
CALLS = 7  # three experts, bull, bear, resolution, judge


def analyze(container: AppContainer) -> ResearchSession:
    return container.coordinator.service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF))


def audit(container: AppContainer, session: ResearchSession) -> list[tuple[str, str]]:
    """(alias, status) of every audited call of the session."""
    with container.database.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT alias, status FROM llm_calls WHERE run_id = :id ORDER BY id"), {"id": session.id}
        )
        return [(r.alias, r.status) for r in rows]


def test_transient_503s_are_retried_and_the_session_completes(tmp_path: Path) -> None:
    server = ModelServer(tmp_path).start(fail={"*": {"status": 503, "times": 2}})
    try:
        container = desk(remote_settings(alias(server, "default", 0)))
        session = analyze(container)
        assert session.status is SessionStatus.COMPLETED
        statuses = [r["status"] for r in server.requests()]
        assert sorted(statuses) == [200] * CALLS + [503] * 2  # two extra attempts, nothing else
        assert session.llm_calls == CALLS
        calls = audit(container, session)
        assert calls.count(("default", "error")) == 2 and calls.count(("default", "ok")) == CALLS
    finally:
        server.kill()


def test_a_persistent_500_is_retried_then_the_expert_fails_cleanly(tmp_path: Path) -> None:
    server = ModelServer(tmp_path).start(fail={TECHNICAL: {"status": 500, "times": None}})
    try:
        container = desk(remote_settings(alias(server, "default", 0)))  # llm_max_retries = 2
        session = analyze(container)
        assert server.count(TECHNICAL) == 3  # the first attempt and two retries
        assert session.status is SessionStatus.PARTIAL
        assert session.expert_errors == {
            "technical_analyst": "every LLM provider failed: default: default answered 500"
        }
        assert session.verdict and session.debate_outcome  # the others went on to a verdict
    finally:
        server.kill()


def test_a_persistent_500_fails_over_to_the_fallback_alias(tmp_path: Path) -> None:
    primary = ModelServer(tmp_path, "primary").start(fail={TECHNICAL: {"status": 500, "times": None}})
    backup = ModelServer(tmp_path, "backup").start()
    try:
        settings = remote_settings(
            alias(primary, "primary", 0), alias(backup, "backup", 10), llm_max_retries=1
        )
        container = desk(settings)
        session = analyze(container)
        assert session.status is SessionStatus.COMPLETED
        assert primary.count(TECHNICAL) == 2 and backup.count(TECHNICAL) == 1
        assert [r["schema"] for r in backup.requests()] == [TECHNICAL]  # only the failed call moved
        assert audit(container, session).count(("backup", "ok")) == 1
    finally:
        primary.kill()
        backup.kill()


def test_a_timeout_is_not_resent_and_fails_over_to_the_fallback_alias(tmp_path: Path) -> None:
    slow = ModelServer(tmp_path, "slow").start(delay={TECHNICAL: 5.0})
    backup = ModelServer(tmp_path, "backup").start()
    try:
        settings = remote_settings(alias(slow, "slow", 0, timeout_seconds=1.0), alias(backup, "backup", 10))
        container = desk(settings)
        session = analyze(container)
        assert session.status is SessionStatus.COMPLETED
        assert slow.count(TECHNICAL) == 1  # a timed-out request would time out again: not resent
        assert backup.count(TECHNICAL) == 1 and len(backup.requests()) == 1
        assert ("slow", "error") in audit(container, session)
    finally:
        slow.kill()
        backup.kill()


def test_a_timeout_without_fallback_fails_the_expert_with_a_clear_error(tmp_path: Path) -> None:
    slow = ModelServer(tmp_path, "slow").start(delay={TECHNICAL: 5.0})
    try:
        container = desk(remote_settings(alias(slow, "slow", 0, timeout_seconds=1.0)))
        session = analyze(container)
        assert session.status is SessionStatus.PARTIAL
        assert session.expert_errors == {
            "technical_analyst": "every LLM provider failed: slow: slow did not answer within 1 s"
        }
        assert slow.count(TECHNICAL) == 1
    finally:
        slow.kill()
