"""IResearchSessionRepository over SQLAlchemy: one row per session, one per finished node."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

from sqlalchemy import delete, func, select, update

from stockdesk.coordinator.domain.dtos.session import (
    NodeExecution,
    ResearchSession,
    SessionPage,
    SessionSummary,
)
from stockdesk.coordinator.domain.model.enums import SessionStatus
from stockdesk.coordinator.domain.ports.session_repository import IResearchSessionRepository
from stockdesk.coordinator.infrastructure.persistence.models import NodeExecutionRow, ResearchSessionRow
from stockdesk.shared.db import Database
from stockdesk.shared.db.timestamps import as_utc
from stockdesk.shared.tasks.liveness import runner_alive, this_runner

SESSION_FIELDS = (
    "parent_session_id", "symbol", "as_of", "skip_debate", "status", "started_at",
    "finished_at", "duration_seconds", "llm_calls", "tokens", "expert_results", "expert_errors",
    "reused_experts", "aggregation", "debate_outcome", "verdict", "errors", "charts", "llm_settings",
)  # fmt: skip


def _rules_kind(settings: dict | None) -> bool:
    settings = settings or {}
    return bool(settings.get("rules_only") or settings.get("verdict_by_rules"))


class SqlResearchSessionRepository(IResearchSessionRepository):
    def __init__(self, database: Database):
        self._db = database

    def save(self, session: ResearchSession) -> None:
        data = session.model_dump(mode="python")
        values = {name: data[name] for name in SESSION_FIELDS}
        values["expert_results"] = session.model_dump(mode="json")["expert_results"]
        values.update(
            experts=[e.value for e in session.experts],
            debate_mode=session.debate_mode.value,
            status=session.status.value,
            action=(session.verdict or {}).get("action"),
        )
        running = session.status is SessionStatus.RUNNING
        values.update(
            owner=this_runner() if running else None, heartbeat_at=datetime.now(UTC) if running else None
        )
        with self._db.session() as db:
            row = db.get(ResearchSessionRow, session.id)
            if row is None:
                db.add(ResearchSessionRow(id=session.id, **values))
            else:
                for name, value in values.items():
                    setattr(row, name, value)
            db.flush()
            db.execute(delete(NodeExecutionRow).where(NodeExecutionRow.session_id == session.id))
            db.add_all(
                NodeExecutionRow(session_id=session.id, **node.model_dump(mode="python"))
                for node in session.nodes
            )

    def add_node(self, session_id: str, node: NodeExecution) -> None:
        with self._db.session() as db:
            db.add(NodeExecutionRow(session_id=session_id, **node.model_dump(mode="python")))

    def heartbeat(self, session_id: str, llm_calls: int, tokens: int) -> None:
        with self._db.session() as db:
            db.execute(
                update(ResearchSessionRow)
                .where(ResearchSessionRow.id == session_id)
                .values(heartbeat_at=datetime.now(UTC), llm_calls=llm_calls, tokens=tokens)
            )

    def recent_step_seconds(self, rules: bool, runs: int) -> tuple[dict[str, list[float]], int]:
        finished = (SessionStatus.COMPLETED.value, SessionStatus.PARTIAL.value)
        with self._db.session() as db:
            candidates = db.execute(
                select(ResearchSessionRow.id, ResearchSessionRow.llm_settings)
                .where(ResearchSessionRow.status.in_(finished))
                .order_by(ResearchSessionRow.started_at.desc())
                .limit(runs * 5)  # the kinds mix; the settings are JSON, read here rather than queried
            ).all()
            ids = [id_ for id_, settings in candidates if _rules_kind(settings) == rules][:runs]
            rows = db.execute(
                select(NodeExecutionRow.node, NodeExecutionRow.seconds).where(
                    NodeExecutionRow.session_id.in_(ids),
                    NodeExecutionRow.status == "done",
                    NodeExecutionRow.seconds.is_not(None),
                )
            ).all()
        seconds: dict[str, list[float]] = {}
        for node, value in rows:
            seconds.setdefault(node, []).append(float(value))
        return seconds, len(ids)

    def mark_interrupted(self, reason: str) -> list[str]:
        marked: list[str] = []
        with self._db.session() as db:
            rows = db.scalars(
                select(ResearchSessionRow).where(ResearchSessionRow.status == SessionStatus.RUNNING.value)
            ).all()
            for row in rows:
                if runner_alive(row.owner, as_utc(row.heartbeat_at)):
                    continue
                last_node = db.scalar(
                    select(func.max(NodeExecutionRow.finished_at)).where(
                        NodeExecutionRow.session_id == row.id
                    )
                )
                started = as_utc(row.started_at)
                signs = [t for t in (as_utc(row.heartbeat_at), as_utc(last_node)) if t is not None]
                last_seen = max([started, *signs])
                row.status = SessionStatus.INTERRUPTED.value
                row.finished_at = last_seen
                row.duration_seconds = round((last_seen - started).total_seconds(), 3)
                row.errors = {**(row.errors or {}), "interrupted": reason}
                row.owner = None
                marked.append(row.id)
        return marked

    def get(self, session_id: str) -> ResearchSession | None:
        with self._db.session() as db:
            row = db.get(ResearchSessionRow, session_id)
            if row is None:
                return None
            nodes = db.scalars(
                select(NodeExecutionRow)
                .where(NodeExecutionRow.session_id == session_id)
                .order_by(NodeExecutionRow.id)
            ).all()
            return ResearchSession(
                id=row.id,
                experts=row.experts,
                debate_mode=row.debate_mode,
                **{
                    name: getattr(row, name)
                    for name in SESSION_FIELDS
                    if name not in ("started_at", "finished_at")
                },
                started_at=as_utc(row.started_at),
                finished_at=as_utc(row.finished_at),
                nodes=[
                    NodeExecution(
                        node=n.node,
                        status=n.status,
                        started_at=as_utc(n.started_at),
                        finished_at=as_utc(n.finished_at),
                        seconds=n.seconds,
                        error=n.error,
                    )
                    for n in nodes
                ],
            )

    def list(
        self,
        *,
        symbol: str | None = None,
        status: str | None = None,
        since: date | None = None,
        action: str | None = None,
        offset: int = 0,
        limit: int = 20,
    ) -> SessionPage:
        query = select(ResearchSessionRow)
        if symbol:
            query = query.where(func.upper(ResearchSessionRow.symbol) == symbol.strip().upper())
        if status:
            query = query.where(ResearchSessionRow.status == status)
        if action:
            query = query.where(func.upper(ResearchSessionRow.action) == action.strip().upper())
        if since:
            query = query.where(ResearchSessionRow.started_at >= datetime.combine(since, time(), tzinfo=UTC))
        with self._db.session() as db:
            total = db.scalar(select(func.count()).select_from(query.subquery())) or 0
            rows = db.scalars(
                query.order_by(ResearchSessionRow.started_at.desc(), ResearchSessionRow.id)
                .offset(offset)
                .limit(limit)
            ).all()
            items = [
                SessionSummary(
                    id=r.id,
                    parent_session_id=r.parent_session_id,
                    symbol=r.symbol,
                    as_of=r.as_of,
                    status=r.status,
                    started_at=as_utc(r.started_at),
                    duration_seconds=r.duration_seconds,
                    llm_calls=r.llm_calls,
                    tokens=r.tokens,
                    action=r.action,
                )
                for r in rows
            ]
        return SessionPage(items=items, total=total, offset=offset, limit=limit)
