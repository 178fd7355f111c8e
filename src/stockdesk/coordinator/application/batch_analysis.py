"""`batch analyze`: one durable job, one task per symbol, one report file per finished symbol.

The job is keyed by its configuration (symbols, date, experts, debate, output folder), so running
the same command again opens the same job and only unfinished symbols run. Where a task runs (this
process, threads, Ray workers) and how it analyses a symbol are given from outside: the work is a
`BatchWorker` built by the composition root (it needs a whole container per worker process).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.coordinator.domain.model.enums import ALL_EXPERTS, DebateModeName, ExpertName
from stockdesk.shared.errors import BadRequestException, NotFoundException
from stockdesk.shared.tasks import (
    BatchWorker,
    ITaskEngine,
    ITaskStore,
    JobRecord,
    ProgressCallback,
    RunBudget,
    TaskCounts,
    TaskStatus,
    run_tasks,
)

JOB_KIND = "batch_analyze"
ACTION_ORDER = {"BUY": 0, "HOLD": 1, "SELL": 2}  # the index lists buys first, sells last
MAX_SYMBOLS = 20_000


class BatchAnalysisConfig(BaseModel):
    """What identifies a batch: the same config is the same job (resumed, never redone)."""

    symbols: list[str] = Field(min_length=1, max_length=MAX_SYMBOLS)
    as_of: date
    experts: list[ExpertName] = Field(default_factory=lambda: list(ALL_EXPERTS))
    skip_debate: bool = False
    debate_mode: DebateModeName = DebateModeName.BULL_BEAR
    rules_only: bool = Field(default=False, description="code-only signals and the rules verdict, no LLM")
    out_dir: str = Field(description="absolute folder the reports and the index are written to")
    report_suffix: str = ".html"

    def report_name(self, symbol: str) -> str:
        return f"{symbol}-{self.as_of.isoformat()}{self.report_suffix}"


class BatchRow(BaseModel):
    """One symbol's line in the index: its verdict, or why it has none."""

    symbol: str
    status: str  # done | failed | pending | running
    action: str | None = None  # the verdict's BUY | HOLD | SELL, held or not
    holder_action: str | None = None  # ADD | HOLD | TRIM | EXIT when the symbol was held on the date
    confidence: float | None = None  # None with insufficient evidence: there is no confidence
    evidence: str | None = None  # sufficient | insufficient (fewer than two experts had data)
    session_id: str | None = None
    session_status: str | None = None
    report: str | None = None
    seconds: float | None = None
    tokens: int = 0
    error: str | None = None


def clean_symbols(symbols: list[str]) -> list[str]:
    """Trimmed, upper-cased, without duplicates, in the order given; one-line error when empty."""
    cleaned = list(dict.fromkeys(s.strip().upper() for s in symbols if s.strip()))
    if not cleaned:
        raise BadRequestException("no symbols given: use --symbols A,B or --universe FILE", code="NO_SYMBOLS")
    return cleaned


def rank(rows: list[BatchRow]) -> list[BatchRow]:
    """Verdicts first, by action (BUY, HOLD, SELL) then confidence (high first); the rest after."""

    def order(row: BatchRow) -> tuple[Any, ...]:
        if row.action is None:
            return (1, 0, 0.0, row.symbol)
        return (0, ACTION_ORDER.get(row.action, 3), -(row.confidence or 0.0), row.symbol)

    return sorted(rows, key=order)


class BatchAnalysisService:
    def __init__(
        self,
        tasks: ITaskStore,
        stored_symbols: Callable[[], set[str]] | None = None,
        check_as_of: Callable[[list[str], date], object] | None = None,
    ):
        """`stored_symbols()`: every symbol in the store, to refuse unknown ones before any work;
        `check_as_of(symbols, day)` raises AS_OF_OUT_OF_RANGE naming the symbols whose stored bars
        do not reach `day` (the rule `analyze` applies), also before any work."""
        self._tasks = tasks
        self._stored_symbols = stored_symbols
        self._check_as_of = check_as_of

    def open(self, config: BatchAnalysisConfig) -> tuple[JobRecord, int]:
        """The job of this config (created if new) and how many of its symbols were new tasks.

        Raises NotFoundException (UNKNOWN_SYMBOL) naming symbols the store does not have, then
        BadRequestException (AS_OF_OUT_OF_RANGE) naming those whose stored bars miss the date.
        """
        if self._stored_symbols is not None:
            known = self._stored_symbols()
            unknown = [s for s in config.symbols if s not in known]
            if unknown:
                more = f" and {len(unknown) - 10} more" if len(unknown) > 10 else ""
                shown = ", ".join(unknown[:10]) + more
                raise NotFoundException(
                    f"not in the store: {shown} (import or sync them first)",
                    code="UNKNOWN_SYMBOL",
                    details={"symbols": unknown},  # a page words the refusal in its own language
                )
        if self._check_as_of is not None:
            self._check_as_of(config.symbols, config.as_of)
        stored = config.model_dump(mode="json")
        if not config.rules_only:  # a batch from before the option keeps its identity (and resumes)
            del stored["rules_only"]
        return self._tasks.open_with_tasks(JOB_KIND, stored, config.symbols)

    def run(
        self,
        job_id: str,
        work: BatchWorker,
        engine: ITaskEngine,
        *,
        max_attempts: int = 2,
        budget: RunBudget | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> TaskCounts:
        """Analyse every symbol not done yet, one task each (see `shared.tasks.run_tasks`)."""
        return run_tasks(
            self._tasks,
            job_id,
            work,
            batch_size=1,
            max_attempts=max_attempts,
            engine=engine,
            budget=budget,
            on_progress=on_progress,
        )

    def job(self, job_id: str) -> JobRecord | None:
        return self._tasks.get_job(job_id)

    def get(self, job_id: str) -> JobRecord:
        """The batch job of that id; 404 BATCH_NOT_FOUND for any other id (another kind's job too)."""
        job = self._tasks.get_job(job_id)
        if job is None or job.kind != JOB_KIND:
            raise NotFoundException(
                f"no batch analysis {job_id}", code="BATCH_NOT_FOUND", details={"id": job_id}
            )
        return job

    def recent(self, limit: int = 20) -> list[JobRecord]:
        """The newest batch jobs, whoever started them (CLI, REST, web UI)."""
        return self._tasks.list_jobs(JOB_KIND, limit)

    def counts(self, job_id: str) -> TaskCounts:
        return self._tasks.counts(job_id)

    def rows(self, job_id: str) -> list[BatchRow]:
        """Every symbol of the job, ranked for the index."""
        rows: list[BatchRow] = []
        for task in self._tasks.tasks(job_id):
            result = task.result or {}
            usage = result.get("usage") or {}
            insufficient = result.get("evidence") == "insufficient"
            rows.append(
                BatchRow(
                    symbol=task.key,
                    status=task.status.value,
                    action=result.get("action"),
                    holder_action=result.get("holder_action"),
                    confidence=None if insufficient else result.get("confidence"),
                    evidence=result.get("evidence"),
                    session_id=result.get("session_id"),
                    session_status=result.get("session_status"),
                    report=result.get("report"),
                    seconds=result.get("seconds"),
                    tokens=int(usage.get("tokens") or 0),
                    error=task.error if task.status is not TaskStatus.DONE else None,
                )
            )
        return rank(rows)
