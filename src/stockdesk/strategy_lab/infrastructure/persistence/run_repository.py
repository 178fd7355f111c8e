"""IStrategyRunRepository over SQLAlchemy: a run row plus one row per finished iteration."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from stockdesk.shared.db import Database
from stockdesk.shared.db.timestamps import as_utc
from stockdesk.strategy_lab.domain.dtos import (
    IterationRecord,
    RunConfig,
    RunStatus,
    RunSummary,
    StrategyRunDTO,
)
from stockdesk.strategy_lab.domain.ports import IStrategyRunRepository
from stockdesk.strategy_lab.infrastructure.persistence.models import StrategyIterationRow, StrategyRunRow

ITERATION_FIELDS = (
    "status", "params", "reasoning", "code", "metrics", "benchmark", "errors", "attempts", "llm_calls",
    "tokens", "started_at", "seconds",
)  # fmt: skip
SELECTION_FIELDS = ("validation", "validation_benchmark", "folds", "returns")


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
            rows = db.scalars(
                select(StrategyIterationRow)
                .where(StrategyIterationRow.run_id == run_id)
                .order_by(StrategyIterationRow.number)
            ).all()
            return self._dto(run, rows)

    def list(self, limit: int = 20) -> list[StrategyRunDTO]:
        with self._db.session() as db:
            runs = db.scalars(
                select(StrategyRunRow).order_by(StrategyRunRow.created_at.desc()).limit(limit)
            ).all()
            out = []
            for run in runs:
                rows = db.scalars(
                    select(StrategyIterationRow)
                    .where(StrategyIterationRow.run_id == run.id)
                    .order_by(StrategyIterationRow.number)
                ).all()
                out.append(self._dto(run, rows))
            return out

    @staticmethod
    def _dto(run: StrategyRunRow, rows: list[StrategyIterationRow]) -> StrategyRunDTO:
        iterations = [
            IterationRecord.model_validate(
                {
                    "run_id": run.id,
                    "number": r.number,
                    **{name: getattr(r, name) for name in ITERATION_FIELDS},
                    **(r.selection or {}),
                    "started_at": as_utc(r.started_at),
                    "is_champion": r.number == run.champion_number,
                }
            )
            for r in rows
        ]
        champion = next((i for i in iterations if i.is_champion), None)
        summary = RunSummary.model_validate(run.summary) if run.summary else None
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
        )
