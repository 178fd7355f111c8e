"""IStrategyRunRepository over SQLAlchemy: a run row plus one row per finished iteration.

Reading a run never fails on one bad iteration row (hand-edited, written by an older version): the
iterations are read with their JSON and timestamps as stored text, decoded and validated one row at a
time, and a row that does not decode or validate is left out and named in the run's `unreadable`
(logged once per process). A run row itself that cannot be read is left out of the list, logged.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Text, select, type_coerce
from sqlalchemy.orm import Session

from stockdesk.shared.db import Database
from stockdesk.shared.db.timestamps import as_utc
from stockdesk.strategy_lab.domain.dtos import (
    IterationRecord,
    RunConfig,
    RunStatus,
    RunSummary,
    StrategyRunDTO,
    UnreadableRow,
)
from stockdesk.strategy_lab.domain.ports import IStrategyRunRepository
from stockdesk.strategy_lab.infrastructure.persistence.models import StrategyIterationRow, StrategyRunRow

ITERATION_FIELDS = (
    "status", "params", "reasoning", "code", "metrics", "benchmark", "errors", "attempts", "llm_calls",
    "tokens", "started_at", "seconds",
)  # fmt: skip
SELECTION_FIELDS = ("validation", "validation_benchmark", "folds", "returns")
JSON_FIELDS = ("params", "metrics", "benchmark", "selection", "errors")
ITERATIONS = StrategyIterationRow.__table__
# every column as stored: a malformed JSON text or timestamp fails its own row's decoding, not the read
RAW_ITERATION = [
    type_coerce(column, Text).label(column.name) if column.name in (*JSON_FIELDS, "started_at") else column
    for column in ITERATIONS.columns
]
MAX_ERROR_CHARS = 300

logger = logging.getLogger(__name__)
_reported: set[tuple[str, str, str]] = set()  # (run id, table, row id) already logged by this process


class SqlStrategyRunRepository(IStrategyRunRepository):
    def __init__(self, database: Database):
        self._db = database

    def create(self, run_id: str, config: RunConfig) -> StrategyRunDTO:
        now = datetime.now(UTC)
        with self._db.session() as db:
            db.add(
                StrategyRunRow(
                    id=run_id,
                    status=RunStatus.RUNNING.value,
                    config=config.model_dump(mode="json"),
                    created_at=now,
                )
            )
        return StrategyRunDTO(id=run_id, status=RunStatus.RUNNING, config=config, created_at=now)

    def save_iteration(self, record: IterationRecord, champion_number: int | None) -> None:
        data = record.model_dump(mode="json")
        values = {name: data[name] for name in ITERATION_FIELDS}
        values["started_at"] = record.started_at
        values["selection"] = {name: data[name] for name in SELECTION_FIELDS}
        with self._db.session() as db:
            run = db.get(StrategyRunRow, record.run_id)
            if run is None:
                raise KeyError(f"strategy run {record.run_id} does not exist")
            row = db.scalar(
                select(StrategyIterationRow).where(
                    StrategyIterationRow.run_id == record.run_id,
                    StrategyIterationRow.number == record.number,
                )
            )
            if row is None:
                db.add(StrategyIterationRow(run_id=record.run_id, number=record.number, **values))
            else:  # a resumed run redoing an iteration replaces it
                for name, value in values.items():
                    setattr(row, name, value)
            run.champion_number = champion_number

    def save_summary(self, run_id: str, summary: RunSummary) -> None:
        with self._db.session() as db:
            run = db.get(StrategyRunRow, run_id)
            if run is None:
                raise KeyError(f"strategy run {run_id} does not exist")
            run.summary = summary.model_dump(mode="json")

    def set_status(self, run_id: str, status: RunStatus, error: str | None = None) -> None:
        with self._db.session() as db:
            run = db.get(StrategyRunRow, run_id)
            if run is None:
                raise KeyError(f"strategy run {run_id} does not exist")
            run.status = status.value
            run.error = error
            run.finished_at = None if status == RunStatus.RUNNING else datetime.now(UTC)

    def get(self, run_id: str) -> StrategyRunDTO | None:
        with self._db.session() as db:
            run = db.get(StrategyRunRow, run_id)
            if run is None:
                return None
            return self._dto(run, _iteration_rows(db, [run_id]).get(run_id, []))

    def list(self, limit: int = 20) -> list[StrategyRunDTO]:
        with self._db.session() as db:
            runs = db.scalars(
                select(StrategyRunRow).order_by(StrategyRunRow.created_at.desc()).limit(limit)
            ).all()
            rows = _iteration_rows(db, [run.id for run in runs])
            out = []
            for run in runs:
                try:
                    out.append(self._dto(run, rows.get(run.id, [])))
                except ValueError as exc:  # its config or status: the run cannot be shown at all
                    _report_once(
                        run.id, UnreadableRow(table="strategy_runs", row_id=run.id, error=_line(exc))
                    )
            return out

    @staticmethod
    def _dto(run: StrategyRunRow, rows: Iterable[Mapping[str, Any]]) -> StrategyRunDTO:
        iterations: list[IterationRecord] = []
        unreadable: list[UnreadableRow] = []
        for row in rows:
            try:
                iterations.append(_iteration(run, row))
            except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
                number = row.get("number")
                bad = UnreadableRow(
                    table="strategy_iterations",
                    row_id=str(row.get("id")),
                    number=number if isinstance(number, int) else None,
                    error=_line(exc),
                )
                unreadable.append(_report_once(run.id, bad))
        champion = next((i for i in iterations if i.is_champion), None)
        summary = None
        try:
            summary = RunSummary.model_validate(run.summary) if run.summary else None
        except ValueError as exc:
            unreadable.append(
                _report_once(run.id, UnreadableRow(table="strategy_runs", row_id=run.id, error=_line(exc)))
            )
        return StrategyRunDTO(
            id=run.id,
            status=RunStatus(run.status),
            config=RunConfig.model_validate(run.config),
            created_at=as_utc(run.created_at) or datetime.now(UTC),
            finished_at=as_utc(run.finished_at),
            champion=champion,
            iterations=iterations,
            error=run.error,
            tokens=sum(i.tokens for i in iterations),
            llm_calls=sum(i.llm_calls for i in iterations),
            summary=summary,
            unreadable=unreadable,
        )


def _iteration_rows(db: Session, run_ids: list[str]) -> dict[str, list[Mapping[str, Any]]]:
    """The iteration rows of these runs as stored (JSON and timestamps as text), by run, in order."""
    found: dict[str, list[Mapping[str, Any]]] = {}
    if not run_ids:
        return found
    query = (
        select(*RAW_ITERATION)
        .where(ITERATIONS.c.run_id.in_(run_ids))
        .order_by(ITERATIONS.c.run_id, ITERATIONS.c.number)
    )
    for row in db.execute(query).mappings():
        found.setdefault(row["run_id"], []).append(row)
    return found


def _iteration(run: StrategyRunRow, row: Mapping[str, Any]) -> IterationRecord:
    """One stored row decoded and validated; ValueError or TypeError when it is malformed."""
    data = {name: _json(row[name]) for name in JSON_FIELDS}
    started = row["started_at"]
    started = datetime.fromisoformat(started) if isinstance(started, str) else started
    return IterationRecord.model_validate(
        {
            "run_id": run.id,
            "number": row["number"],
            **{name: data.get(name, row[name]) for name in ITERATION_FIELDS},
            **(data["selection"] or {}),
            "started_at": as_utc(started),
            "is_champion": row["number"] == run.champion_number,
        }
    )


def _json(value: object) -> object:
    """A JSON column as SQLite returns it coerced to text (PostgreSQL's driver decodes it already)."""
    return json.loads(value) if isinstance(value, str) else value


def _line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"


def _report_once(run_id: str, row: UnreadableRow) -> UnreadableRow:
    """Log an unreadable row the first time this process meets it (a page polls its run every second)."""
    if (run_id, row.table, row.row_id) not in _reported:
        _reported.add((run_id, row.table, row.row_id))
        where = f"iteration {row.number} " if row.number is not None else ""
        logger.warning(
            "strategy run %s: %s%s row %s is left out: %s", run_id, where, row.table, row.row_id, row.error
        )
    return row
