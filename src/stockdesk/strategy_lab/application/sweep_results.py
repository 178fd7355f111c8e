"""A sweep's tasks as the lab's trial records, and the table ranked out of sample.

Why records: a finished task's result has the shape of an `IterationRecord`, so the sweep ranks,
picks its champion and computes DSR and PBO with the very functions `strategy run` uses. An LLM
proposal that repeats an earlier set is one trial, not two (it is listed, unranked).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stockdesk.shared.tasks import JobRecord, TaskRecord, TaskStatus
from stockdesk.strategy_lab.application.trials import SCORED, pick_champion
from stockdesk.strategy_lab.domain.dtos import IterationRecord, RunSummary
from stockdesk.strategy_lab.domain.sweep import (
    SUMMARY_KEY,
    SweepCounts,
    SweepPlan,
    SweepResults,
    SweepRow,
    SweepSpec,
)
from stockdesk.strategy_lab.domain.sweep_grid import params_key

_RECORD_FIELDS = frozenset(IterationRecord.model_fields) - {"run_id", "started_at"}


def record_of(job_id: str, task: TaskRecord) -> IterationRecord:
    """A done set's task as the trial record it was stored as."""
    result = {k: v for k, v in (task.result or {}).items() if k in _RECORD_FIELDS}
    return IterationRecord.model_validate({**result, "run_id": job_id, "started_at": task.updated_at})


def records_of(job_id: str, tasks: list[TaskRecord]) -> tuple[list[IterationRecord], dict[int, str]]:
    """The sweep's distinct trials in number order, and each trial's task key by number."""
    done = [
        (record_of(job_id, t), t.key) for t in tasks if t.key != SUMMARY_KEY and t.status is TaskStatus.DONE
    ]
    distinct: list[IterationRecord] = []
    keys: dict[int, str] = {}
    seen: set[str] = set()
    for record, key in sorted(done, key=lambda pair: pair[0].number):
        if record.params is not None:
            identity = params_key(record.params)
            if identity in seen:
                continue
            seen.add(identity)
        distinct.append(record)
        keys[record.number] = key
    return distinct, keys


def sweep_results(job: JobRecord, spec: SweepSpec, plan: SweepPlan, tasks: list[TaskRecord]) -> SweepResults:
    by_key = {t.key: t for t in tasks}
    records, keys = records_of(job.id, tasks)
    summary_task = by_key.get(SUMMARY_KEY)
    stored = summary_task.result if summary_task is not None and summary_task.result else None
    summary = RunSummary.model_validate(stored["summary"]) if stored else None
    if stored is not None:
        champion_key = stored.get("champion")
    else:
        champion = pick_champion(records, spec.max_drawdown_limit)  # what the summary will pick
        champion_key = keys[champion.number] if champion is not None else None
    first_of: dict[str, int] = {}
    rows = []
    for chosen in plan.sets:
        task = by_key.get(chosen.key)
        row = _row(job.id, chosen.key, chosen.number, task, spec.max_drawdown_limit)
        if row.params is not None and task is not None and task.status is TaskStatus.DONE:
            pk = params_key(record_of(job.id, task).params)  # type: ignore[arg-type]
            if pk in first_of:
                row.duplicate_of = first_of[pk]
            else:
                first_of[pk] = chosen.number
        row.champion = chosen.key == champion_key
        rows.append(row)
    ranked = rank_rows(rows)
    notes = list(summary.notes) if summary else []
    repeats = sum(1 for r in rows if r.duplicate_of is not None)
    if repeats:
        notes.append(f"{repeats} LLM proposal(s) repeated an earlier set: counted once among the trials")
    return SweepResults(
        job_id=job.id,
        status=job.status.value,
        error=job.error,
        spec=spec,
        counts=_counts(tasks),
        rows=ranked,
        skipped=plan.skipped,
        champion_key=champion_key,
        summary=summary,
        notes=notes,
    )


def _row(job_id: str, key: str, number: int, task: TaskRecord | None, limit: float) -> SweepRow:
    if task is None or task.status is not TaskStatus.DONE:
        status = task.status.value if task is not None else TaskStatus.PENDING.value
        return SweepRow(rank=None, key=key, number=number, status=status, error=task.error if task else None)
    record = record_of(job_id, task)
    usage: Mapping[str, Any] = (task.result or {}).get("usage") or {}
    row = SweepRow(
        rank=None,
        key=key,
        number=number,
        status=record.status.value,
        params=record.params.model_dump(mode="json") if record.params is not None else None,
        reasoning=record.reasoning,
        tokens=int(usage.get("tokens") or record.tokens),
        error="; ".join(f"{e.get('field_path')}: {e.get('error_type')}" for e in record.errors) or None,
    )
    if record.metrics is not None:
        row.in_sample_sharpe = record.metrics.sharpe
        row.in_sample_annual_return = record.metrics.annual_return
        row.in_sample_max_drawdown = record.metrics.max_drawdown
    if record.validation is not None:
        v = record.validation
        row.validation_sharpe = v.sharpe
        row.validation_annual_return = v.annual_return
        row.validation_total_return = v.total_return
        row.validation_max_drawdown = v.max_drawdown
        row.validation_trades = v.trades
        row.within_limit = v.max_drawdown >= -limit
    return row


def rank_rows(rows: list[SweepRow]) -> list[SweepRow]:
    """Scored sets within the drawdown limit by validation Sharpe, then those beyond it, then the
    rest by number; ties go to the earlier set (the order `pick_champion` uses)."""

    def group(row: SweepRow) -> int:
        scored = row.status in SCORED and row.validation_sharpe is not None and row.duplicate_of is None
        if not scored:
            return 2
        return 0 if row.within_limit else 1

    ordered = sorted(rows, key=lambda r: (group(r), -(r.validation_sharpe or 0.0), r.number))
    for position, row in enumerate(ordered, start=1):
        row.rank = position if group(row) < 2 else None
    return ordered


def _counts(tasks: list[TaskRecord]) -> SweepCounts:
    sets = [t for t in tasks if t.key != SUMMARY_KEY]
    done = sum(1 for t in sets if t.status is TaskStatus.DONE)
    failed = sum(1 for t in sets if t.status is TaskStatus.FAILED)
    return SweepCounts(done=done, failed=failed, pending=len(sets) - done - failed, total=len(sets))
