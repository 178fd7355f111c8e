"""`stockdesk jobs list|show|cancel|resume`: every durable job (batch, evaluation, sweep ...) in one place.

A job is found by its id or any unique prefix of it (`jobs list` shows twelve characters).
`cancel` asks the job's runner, in whatever process, to stop between tasks (unfinished tasks stay
pending), through the job kinds (`shared.tasks.kinds`) as the REST and web cancel do: this process
runs no job, so a running one gets the stop request its runner reads. `resume` runs a job's
unfinished tasks again here, in the foreground, through the job kinds the command is given for the
run's options: the same checks as the REST and web resume, each kind's own way of running, after
the same recovery (the tasks a dead process left `running` go back to pending). `list` and `show`
read through the store, which records a run whose process died as `interrupted`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import typer
from rich.console import Console
from rich.table import Table

from stockdesk.shared.errors import BadRequestException, ConflictException, NotFoundException
from stockdesk.shared.tasks import ITaskStore, JobRecord, JobStatus, RunBudget, TaskStatus
from stockdesk.shared.tasks.kinds import JobKinds


@dataclass(frozen=True)
class RunOptions:
    """How `jobs resume` runs a job here: tasks at once, the Ray cluster, the whole job's budget."""

    workers: int
    ray_address: str | None
    budget: RunBudget | None


MAX_SHOWN_FAILURES = 20
ACTIVE = (JobStatus.RUNNING, JobStatus.PENDING)
CANCELLED_HERE = "cancelled by `stockdesk jobs cancel`"
RUNS_NOTHING = RunOptions(workers=1, ray_address=None, budget=None)  # what `cancel` builds the kinds with


def find_job(store: ITaskStore, prefix: str) -> JobRecord:
    """The one job whose id starts with `prefix`; one-line errors for none or several."""
    prefix = prefix.strip().lower()
    if len(prefix) < 4:
        raise BadRequestException("give at least 4 characters of the job id", code="BAD_JOB_ID")
    exact = store.get_job(prefix)
    if exact is not None:
        return exact
    found = [job for job in store.list_jobs(limit=100_000) if job.id.startswith(prefix)]
    if not found:
        raise NotFoundException(f"no job with an id starting {prefix}", code="JOB_NOT_FOUND")
    if len(found) > 1:
        raise BadRequestException(
            f"{len(found)} jobs start with {prefix}: give more characters", code="AMBIGUOUS_JOB_ID"
        )
    return found[0]


def stop_job(store: ITaskStore, kinds: JobKinds, job: JobRecord) -> str:
    """Stop `job` and say how: a running one as every cancel stops it (here, by the stop request its
    runner reads); one nothing runs is marked cancelled, its stop request left all the same for a
    runner about to start (queued in a server). An ended job is a 400 JOB_FINISHED."""
    if job.status in (JobStatus.DONE, JobStatus.CANCELLED):
        raise BadRequestException(f"job {job.id[:12]} is already {job.status.value}", code="JOB_FINISHED")
    try:
        kinds.cancel(job.id, CANCELLED_HERE, remote_reason=CANCELLED_HERE)
    except NotFoundException:  # not running anywhere
        store.request_cancel(job.id, CANCELLED_HERE)
    if job.live:
        return "asked to stop; it stops after the tasks in flight"
    store.set_job_status(job.id, JobStatus.CANCELLED, CANCELLED_HERE)
    return "cancelled"


def _job_dict(store: ITaskStore, job: JobRecord) -> dict[str, object]:
    return {**job.model_dump(mode="json"), "tasks": store.counts(job.id).model_dump()}


def build_jobs_cli(
    get_store: Callable[[], ITaskStore], job_kinds: Callable[[RunOptions], JobKinds]
) -> typer.Typer:
    """`job_kinds(options)`: the kinds `resume` can run in this process, run with those options;
    `cancel` stops through them too (it runs nothing, so the options do not matter there)."""
    app = typer.Typer(help="Durable jobs: batch analyses, evaluations, strategy sweeps, syncs.")

    @app.command("list")
    def list_jobs(
        kind: str | None = typer.Option(None, "--kind", help="Only this kind, e.g. batch_analyze."),
        limit: int = typer.Option(20, "--limit", min=1, max=1000, help="Newest first."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """The newest jobs with their status and task counts."""
        store = get_store()
        jobs = store.list_jobs(kind, limit=limit)
        if as_json:
            typer.echo(json.dumps([_job_dict(store, job) for job in jobs], indent=2, ensure_ascii=False))
            return
        table = Table("id", "kind", "status", "done", "failed", "updated", "note", title="jobs")
        for job in jobs:
            counts = store.counts(job.id)
            table.add_row(
                job.id[:12],
                job.kind,
                job.status.value + (" (cancel asked)" if job.cancel_reason else ""),
                f"{counts.done}/{counts.total}",
                str(counts.failed or ""),
                f"{job.updated_at:%Y-%m-%d %H:%M}",
                (job.error or "")[:60],
            )
        Console().print(table)

    @app.command("show")
    def show(
        job_id: str = typer.Argument(..., help="Job id or a unique prefix of it."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON (with every failed task)."),
    ) -> None:
        """One job: its configuration, counts and failed tasks with their errors."""
        store = get_store()
        job = find_job(store, job_id)
        failed = store.tasks(job.id, TaskStatus.FAILED)
        if as_json:
            data = _job_dict(store, job)
            data["failed"] = [t.model_dump(mode="json", include={"key", "attempts", "error"}) for t in failed]
            typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
            return
        counts = store.counts(job.id)
        typer.echo(f"job {job.id} ({job.kind}): {job.status.value}" + (f": {job.error}" if job.error else ""))
        typer.echo(
            f"tasks: {counts.done} done, {counts.failed} failed, {counts.pending} pending, "
            f"{counts.running} running, {counts.total} in all"
        )
        typer.echo(
            f"created {job.created_at:%Y-%m-%d %H:%M:%S} UTC, updated {job.updated_at:%Y-%m-%d %H:%M:%S} UTC"
        )
        typer.echo("config: " + json.dumps(job.config, ensure_ascii=False)[:2000])
        for task in failed[:MAX_SHOWN_FAILURES]:
            typer.echo(f"  failed {task.key} after {task.attempts} attempts: {task.error}")
        if len(failed) > MAX_SHOWN_FAILURES:
            typer.echo(f"  ... and {len(failed) - MAX_SHOWN_FAILURES} more (--json lists them all)")

    @app.command("cancel")
    def cancel(job_id: str = typer.Argument(..., help="Job id or a unique prefix of it.")) -> None:
        """Stop a job between tasks (finished tasks are kept; `jobs resume` goes on)."""
        store = get_store()
        job = find_job(store, job_id)
        typer.echo(f"job {job.id[:12]}: {stop_job(store, job_kinds(RUNS_NOTHING), job)}")

    @app.command("resume")
    def resume(
        job_id: str = typer.Argument(..., help="Job id or a unique prefix of it."),
        workers: int = typer.Option(2, "--workers", min=1, max=512, help="Tasks at once."),
        ray_address: str | None = typer.Option(None, "--ray-address", help="Ray cluster to run on."),
        max_tokens: int | None = typer.Option(
            None, "--max-tokens", min=1, help="Budget for the whole job (what it spent so far counts)."
        ),
        max_cost: float | None = typer.Option(
            None, "--max-cost", min=0.0, help="USD budget for the whole job."
        ),
    ) -> None:
        """Run a job's unfinished tasks (pending, those a dead process left running, and failed ones
        with attempts left); the job is done only when every task is."""
        job = find_job(get_store(), job_id)
        kinds = job_kinds(RunOptions(workers, ray_address, RunBudget.of(max_tokens, max_cost)))
        try:
            kinds.resume(job.id)
        except ConflictException as exc:
            if exc.code == "NOT_RESUMABLE":  # a kind this command cannot run: a usage error (exit 2)
                raise BadRequestException(exc.message, code=exc.code) from exc
            if exc.code != "JOB_DONE":
                raise
            typer.echo(f"job {job.id[:12]} is done: nothing to resume")

    return app
