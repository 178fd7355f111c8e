"""`stockdesk jobs list|show|cancel|resume` over the real task store, through the real CLI app."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import typer
from typer.testing import CliRunner

from stockdesk.evaluation.presentation.rest import EvaluationBody
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.tasks import JobStatus, TaskStatus, config_hash
from tests.coordinator.support import SYMBOL, pipeline

runner = CliRunner()


def _job(database: Database, name: str, keys: list[str], status: JobStatus = JobStatus.PENDING) -> str:
    database.upgrade()
    store = SqlTaskStore(database)
    config = {"name": name}
    job, _ = store.open_job("unit-test", config_hash(config), config)
    store.add_tasks(job.id, keys)
    store.set_job_status(job.id, status)
    return job.id


def test_jobs_list_shows_each_job_with_its_counts(
    cli_app: typer.Typer, settings: Settings, database: Database
) -> None:
    job_id = _job(database, "a", ["K1", "K2", "K3"])
    store = SqlTaskStore(database)
    store.mark_running(job_id, ["K1", "K2"])
    store.complete(job_id, {"K1": {"ok": 1}})
    store.fail(job_id, {"K2": "RuntimeError: boom"})
    result = runner.invoke(cli_app, ["jobs", "list", "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.output)
    assert row["id"] == job_id and row["kind"] == "unit-test"
    assert (row["tasks"]["done"], row["tasks"]["failed"], row["tasks"]["pending"]) == (1, 1, 1)


def test_jobs_show_finds_a_job_by_prefix_and_lists_its_failures(
    cli_app: typer.Typer, settings: Settings, database: Database
) -> None:
    job_id = _job(database, "b", ["K1", "K2"])
    store = SqlTaskStore(database)
    store.mark_running(job_id, ["K2"])
    store.fail(job_id, {"K2": "ValueError: bad row"})
    result = runner.invoke(cli_app, ["jobs", "show", job_id[:8]])
    assert result.exit_code == 0, result.output
    assert f"job {job_id} (unit-test)" in result.output
    assert "failed K2 after 1 attempts: ValueError: bad row" in result.output


def test_cancelling_a_running_job_leaves_a_stop_request_for_its_runner(
    cli_app: typer.Typer, settings: Settings, database: Database
) -> None:
    running = _job(database, "c", ["K1"])
    SqlTaskStore(database).start_run(running)  # run by a live process (this one)
    waiting = _job(database, "d", ["K1"], JobStatus.INTERRUPTED)
    result = runner.invoke(cli_app, ["jobs", "cancel", running])
    assert result.exit_code == 0 and "asked to stop" in result.output
    store = SqlTaskStore(database)
    assert store.cancel_requested(running) is not None
    assert store.get_job(running).status is JobStatus.RUNNING  # type: ignore[union-attr]
    result = runner.invoke(cli_app, ["jobs", "cancel", waiting])
    assert result.exit_code == 0 and "cancelled" in result.output
    assert store.get_job(waiting).status is JobStatus.CANCELLED  # type: ignore[union-attr]
    assert store.tasks(waiting)[0].status is TaskStatus.PENDING  # nothing lost: resumable


def test_jobs_cancel_stops_through_the_job_kinds_as_every_cancel_does(
    cli_app: typer.Typer, settings: Settings, database: Database
) -> None:
    """Held by the process's own executor (what a server does), the job is stopped there at once, as
    the REST and web cancel stop it; an ended one is refused (a 400: exit 2 from `stockdesk`) and
    left as it is."""
    import stockdesk.entrypoints.cli as entry

    job_id = _job(database, "g", ["K1"])
    store = SqlTaskStore(database)
    store.start_run(job_id)
    executor, release = entry.container().jobs, threading.Event()
    assert executor.submit("unit-test", job_id, lambda: release.wait(30))
    try:
        result = runner.invoke(cli_app, ["jobs", "cancel", job_id[:12]])
        assert result.exit_code == 0, result.output
        assert result.output == f"job {job_id[:12]}: asked to stop; it stops after the tasks in flight\n"
        assert executor.state_of(job_id) == "cancelling"  # stopped where it runs, not only asked in the store
    finally:
        release.set()
    done = _job(database, "h", ["K1"], JobStatus.DONE)
    refused = runner.invoke(cli_app, ["jobs", "cancel", done])
    assert isinstance(refused.exception, BadRequestException) and refused.exception.code == "JOB_FINISHED"
    assert store.cancel_requested(done) is None and store.get_job(done).status is JobStatus.DONE  # type: ignore[union-attr]


def test_unknown_ids_and_kinds_without_a_resumer_are_one_line_errors(
    cli_app: typer.Typer, settings: Settings, database: Database, tmp_path: Path
) -> None:
    job_id = _job(database, "e", ["K1"])
    result = runner.invoke(cli_app, ["jobs", "show", "ffffffff"])
    assert result.exit_code != 0 and "no job with an id starting ffffffff" in str(result.exception)
    result = runner.invoke(cli_app, ["jobs", "resume", job_id])
    assert result.exit_code != 0 and "unit-test" in str(result.exception)


def test_jobs_resume_runs_an_evaluation_here_through_the_job_kinds(
    cli_app: typer.Typer, settings: Settings
) -> None:
    """In the foreground with one worker (no Ray): the stale stop request is forgotten, the points
    are computed, then a second resume says there is nothing left."""
    container, _, _ = pipeline(settings)  # the CLI's store: the same STOCKDESK_HOME
    config = EvaluationBody.model_validate(
        {"symbols": [SYMBOL], "start": "2023-09-01", "end": "2024-03-29", "every": 10, "horizons": [5]}
    ).config()
    job = container.evaluation.service.start(config)
    store = SqlTaskStore(container.database)
    store.request_cancel(job.job_id, "cancelled by `stockdesk jobs cancel`")
    result = runner.invoke(cli_app, ["jobs", "resume", job.job_id[:12], "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert store.get_job(job.job_id).status is JobStatus.DONE  # type: ignore[union-attr]
    assert store.counts(job.job_id).done == job.total > 0
    again = runner.invoke(cli_app, ["jobs", "resume", job.job_id[:12]])
    assert again.exit_code == 0 and "is done: nothing to resume" in again.output
