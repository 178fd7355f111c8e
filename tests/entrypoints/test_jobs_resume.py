"""`POST /api/v1/jobs/{id}/resume`: one route resumes a stopped job of every kind that resumes in a
server (evaluations, briefings, strategy runs), through the job kinds, on the app's executor; batch
analyses and sweeps are refused with the CLI command that resumes them.

Each job is opened the way its kind's start opens it but never handed to the executor (what a
server stopped mid-way leaves behind); the resume must run it to its end through the real app,
task store (SQLite) and services. The per-kind resume route answers 307 to the general one.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from stockdesk.coordinator.application.batch_analysis import BatchAnalysisConfig
from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.presentation.rest import EvaluationBody
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.dates import parse_day
from stockdesk.shared.db.task_store import JOBS, SqlTaskStore
from stockdesk.shared.tasks import JobStatus
from stockdesk.strategy_lab.application.sweep_service import JOB_KIND as SWEEP_KIND
from stockdesk.strategy_lab.presentation.rest.strategy_schemas import RunBody
from tests.api_support import api_client, wait_for_job
from tests.briefing.briefing_support import BriefingModel, llm_over, seed_briefing_store
from tests.conftest import scripted_service
from tests.coordinator.support import AS_OF, SYMBOL, pipeline
from tests.shared.test_dead_runs import dead_pid
from tests.strategy_lab.support import answer, populate

EVALUATION = {
    "symbols": [SYMBOL], "start": "2023-09-01", "end": "2024-03-29", "every": 10, "horizons": [5, 20],
}  # fmt: skip


def resume(client: TestClient, job_id: str, kind: str) -> None:
    """Resume through the general route: 202 with the job as the executor holds it (or just ended)."""
    answered = client.post(f"/api/v1/jobs/{job_id}/resume")
    assert answered.status_code == 202, answered.text
    body = answered.json()
    assert (body["kind"], body["job_id"]) == (kind, job_id)
    assert body["state"] in ("queued", "running", "ended")


def settled(container: AppContainer, job_id: str) -> None:
    deadline = time.monotonic() + 120.0
    while container.jobs.is_active(job_id) and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_stopped_evaluation_resumes_to_its_end_and_then_is_done(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    job = container.evaluation.service.start(EvaluationBody.model_validate(EVALUATION).config())
    assert job.pending == job.total > 0 and not container.jobs.is_active(job.job_id)
    SqlTaskStore(container.database).request_cancel(job.job_id, "cancelled by the user")  # stale stop

    resume(client, job.job_id, "evaluation")
    finished = wait_for_job(client, f"/api/v1/evaluations/{job.job_id}", until=("done", "failed"))
    assert finished["status"] == "done" and finished["done"] == finished["total"]
    settled(container, job.job_id)
    again = client.post(f"/api/v1/jobs/{job.job_id}/resume")
    assert again.status_code == 409 and again.json()["error"]["code"] == "JOB_DONE"


def test_an_evaluation_opened_beyond_the_server_s_bounds_is_not_resumed_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A job the CLI opened may span more than one server request may: resuming it here is 422,
    as starting it here would be, and nothing runs."""
    monkeypatch.setenv("STOCKDESK_MAX_WINDOW_DAYS", "30")
    container, _, _ = pipeline(Settings())
    job = container.evaluation.service.start(EvaluationBody.model_validate(EVALUATION).config())
    refused = api_client(container).post(f"/api/v1/jobs/{job.job_id}/resume")
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "WINDOW_TOO_LONG"
    assert container.jobs.active() == []


@pytest.fixture
def lab(settings: Settings) -> AppContainer:
    built = AppContainer(settings)
    provider = ScriptedProvider([answer(), "Sorry, I cannot help with that."])
    built.__dict__["llm_service"] = scripted_service(provider, database=built.database)
    populate(built.database)
    return built


def test_a_strategy_run_resumes_through_the_jobs_route_and_its_own_route_redirects_there(
    lab: AppContainer,
) -> None:
    client = api_client(lab)
    config = RunBody.model_validate({"start": "2023-07-01", "iterations": 2, "max_attempts": 1}).config()
    run = lab.strategy_lab.service.create_run(config)  # stored, never submitted: cut off before it ran
    moved = client.post(f"/api/v1/strategy/runs/{run.id}/resume", follow_redirects=False)
    assert moved.status_code == 307 and moved.headers["location"] == f"/api/v1/jobs/{run.id}/resume"

    resume(client, run.id, "strategy-run")
    done = wait_for_job(client, f"/api/v1/strategy/runs/{run.id}")
    assert done["status"] == "completed" and len(done["iterations"]) == 2
    settled(lab, run.id)
    followed = client.post(f"/api/v1/strategy/runs/{run.id}/resume")  # followed: the jobs route's answer
    assert followed.status_code == 409 and followed.json()["error"]["code"] == "JOB_DONE"


@pytest.fixture
def desk(settings: Settings, tmp_path: Path) -> Iterator[AppContainer]:
    built = AppContainer(settings, llm_service=llm_over(BriefingModel()))
    seed_briefing_store(built.database, tmp_path)
    yield built
    built.close()


def test_a_stopped_briefing_resumes_to_its_script(desk: AppContainer) -> None:
    client = api_client(desk)
    jobs = desk.briefing.jobs
    assert jobs is not None
    job = jobs.start(parse_day("2024-03-01"), ["ZMPL", "XMPL"])
    assert job.status == "pending" and job.done == 0

    resume(client, job.job_id, "briefing")
    settled(desk, job.job_id)
    assert client.get(f"/api/v1/briefings/{job.job_id}").json()["status"] == "done"
    script = client.get(f"/api/v1/briefings/{job.job_id}/script")
    assert script.status_code == 200 and script.json()["chapter"]


def test_unknown_running_and_unresumable_jobs_are_refused_with_their_codes(settings: Settings) -> None:
    container = AppContainer(settings)
    client = api_client(container)
    unknown = client.post("/api/v1/jobs/nope/resume")
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "JOB_NOT_FOUND"

    container.database.upgrade()
    store = SqlTaskStore(container.database)
    sync, _ = store.open_with_tasks("sync", {"datasets": ["bars"]}, ["01:bars"])  # a sync starts anew
    refused = client.post(f"/api/v1/jobs/{sync.id}/resume")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "NOT_RESUMABLE"
    assert "strategy-run" in refused.json()["error"]["message"]  # it says what resumes here

    elsewhere, _ = store.open_with_tasks("evaluate", {"symbols": ["AAPL"]}, ["AAPL|2024-06-28"])
    store.start_run(elsewhere.id)  # a live runner (this process, as the CLI's `evaluate` would be)
    running = client.post(f"/api/v1/jobs/{elsewhere.id}/resume")
    assert running.status_code == 409 and running.json()["error"]["code"] == "JOB_RUNNING"


def test_batch_analyses_and_sweeps_resume_from_the_cli_and_the_server_says_which_command(
    settings: Settings, tmp_path: Path
) -> None:
    """They run on a task engine (Ray) the server does not build for a resume: the REST and the web
    resume refuse them (409 NOT_RESUMABLE) naming `stockdesk jobs resume <id>`, and the jobs page
    offers Resume on a stopped evaluation but not on them; nothing starts."""
    container, _, _ = pipeline(settings)
    client = api_client(container)
    config = BatchAnalysisConfig(symbols=[SYMBOL], as_of=AS_OF, out_dir=str(tmp_path / "batch"))
    batch, _ = container.batch_analysis.open(config)  # opened, never run: what a stopped server leaves
    store = SqlTaskStore(container.database)
    sweep, _ = store.open_with_tasks(SWEEP_KIND, {"grid": {"top_n": [5, 10]}}, ["s0", "s1"])
    evaluation = container.evaluation.service.start(EvaluationBody.model_validate(EVALUATION).config())

    for job_id in (batch.id, sweep.id):
        refused = client.post(f"/api/v1/jobs/{job_id}/resume")
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "NOT_RESUMABLE"
        assert f"run `stockdesk jobs resume {job_id}`" in refused.json()["error"]["message"]
        page = client.post(f"/jobs/{job_id}/resume?back=/jobs")
        assert page.status_code == 409 and 'data-code="NOT_RESUMABLE"' in page.text
        assert f"stockdesk jobs resume {job_id}" in page.text

    jobs = client.get("/jobs").text
    stopped = jobs[jobs.index('id="stopped-table"') :]
    assert (
        f'data-job="{evaluation.job_id}"' in stopped
        and f'hx-post="/jobs/{evaluation.job_id}/resume"' in stopped
    )
    for job_id in (batch.id, sweep.id):
        assert job_id not in jobs
    assert container.jobs.active() == []
    assert store.get_job(batch.id).status is JobStatus.PENDING  # type: ignore[union-attr]


def test_the_openapi_document_shows_one_resume_route(settings: Settings) -> None:
    paths = api_client(AppContainer(settings)).get("/api/v1/openapi.json").json()["paths"]
    assert sorted(p for p in paths if p.endswith("/resume")) == ["/api/v1/jobs/{job_id}/resume"]
    declared = paths["/api/v1/jobs/{job_id}/resume"]["post"]["responses"]
    assert {"202", "404", "409", "422", "429"} <= set(declared)


def test_an_evaluation_whose_process_died_shows_interrupted_and_the_resume_button_finishes_it(
    settings: Settings,
) -> None:
    """What a killed `stockdesk evaluate` leaves: the job `running` under a dead pid, a batch in its
    hands. REST and the history page show it interrupted; the jobs page's Resume (the same job kinds
    as REST's resume) computes every point, those the dead run held included."""
    container, _, _ = pipeline(settings)
    client = api_client(container)
    store = SqlTaskStore(container.database)
    job = container.evaluation.service.start(EvaluationBody.model_validate(EVALUATION).config())
    keys = [t.key for t in store.tasks(job.job_id)]
    store.start_run(job.job_id)
    store.mark_running(job.job_id, keys[:3])
    with container.database.session() as db:
        db.execute(
            update(JOBS).where(JOBS.c.id == job.job_id).values(owner=f"{socket.gethostname()}:{dead_pid()}")
        )

    stored = client.get(f"/api/v1/jobs/{job.job_id}").json()
    assert stored["status"] == "interrupted" and stored["tasks"]["running"] == 0
    assert stored["tasks"]["pending"] == job.total
    assert (
        f'data-job="{job.job_id}" data-kind="evaluation" data-state="interrupted"'
        in client.get("/jobs/history").text
    )

    pressed = client.post(f"/jobs/{job.job_id}/resume", headers={"HX-Request": "true"})
    assert pressed.status_code == 200, pressed.text
    finished = wait_for_job(client, f"/api/v1/evaluations/{job.job_id}", until=("done", "failed"))
    assert finished["status"] == "done" and finished["done"] == finished["total"] == job.total
