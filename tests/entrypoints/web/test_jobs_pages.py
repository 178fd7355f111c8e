"""The jobs page over HTTP: every active job of this server with its kind, state and page, a Cancel that
reaches the job, its own polling (the table alone for htmx), and 404 for a job that is not active;
stopped jobs with a Resume that runs them; the job pages' old Cancel and Resume routes redirecting
here."""

from __future__ import annotations

import re
import threading
import time

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.presentation.rest import EvaluationBody
from stockdesk.shared.config import Settings
from tests.api_support import api_client, wait_for_job
from tests.coordinator.support import SYMBOL, pipeline

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


@pytest.fixture
def container(settings: Settings) -> AppContainer:
    built, _, _ = pipeline(settings)
    return built


@pytest.fixture
def client(container: AppContainer) -> TestClient:
    return api_client(container)


def test_no_job_says_so_and_polls_itself(client: TestClient) -> None:
    page = client.get("/jobs")
    assert page.status_code == 200 and 'id="jobs-none"' in page.text
    assert 'hx-get="/jobs" hx-trigger="every 2s"' in page.text
    assert "没有正在运行或排队的任务" in client.get("/jobs", headers=ZH).text


def test_active_jobs_are_listed_with_their_pages_and_cancel_reaches_them(
    client: TestClient, container: AppContainer
) -> None:
    release = threading.Event()
    cancelled = threading.Event()

    def work() -> None:
        release.wait(30)

    evaluation_id = "e" * 32
    assert container.jobs.submit("evaluation", evaluation_id, work)  # running: holds the evaluation slot
    assert container.jobs.submit("evaluation", "f" * 32, lambda: cancelled.set())  # queued behind it
    assert container.jobs.submit("custom", "c" * 32, work)
    try:
        page = client.get("/jobs")
        rows = re.findall(r'<tr data-job="(\w+)" data-kind="([\w-]+)" data-state="(\w+)">', page.text)
        assert rows == [
            (evaluation_id, "evaluation", "running"),
            ("f" * 32, "evaluation", "queued"),
            ("c" * 32, "custom", "running"),
        ]
        assert f'href="/evaluations/{evaluation_id}"' in page.text and "Evaluation" in page.text
        assert f'aria-label="Cancel job {"f" * 12}"' in page.text

        table = client.post(f"/jobs/{'f' * 32}/cancel", headers={"HX-Request": "true"})
        assert table.status_code == 200 and "<html" not in table.text
        assert f'data-job="{"f" * 32}" data-kind="evaluation" data-state="cancelling"' in table.text

        plain = client.post(f"/jobs/{'c' * 32}/cancel", follow_redirects=False)
        assert plain.status_code == 303 and plain.headers["location"] == "/jobs"
        polled = client.get("/jobs", headers={"HX-Request": "true"})
        assert (
            "<html" not in polled.text
            and f'data-job="{"c" * 32}" data-kind="custom" data-state="cancelling"' in polled.text
        )
    finally:
        release.set()
    deadline = time.monotonic() + 30.0
    while container.jobs.active() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert container.jobs.active() == [] and not cancelled.is_set()  # the cancelled queued job never ran


def test_cancelling_a_job_that_is_not_active_is_404(client: TestClient) -> None:
    answer = client.post("/jobs/nope/cancel")
    assert answer.status_code == 404 and 'data-code="JOB_NOT_FOUND"' in answer.text
    fragment = client.post("/jobs/nope/cancel", headers={"HX-Request": "true"})
    assert fragment.status_code == 404 and "<html" not in fragment.text


def test_a_stopped_job_is_offered_for_resuming_and_resume_runs_it(
    client: TestClient, container: AppContainer
) -> None:
    config = EvaluationBody.model_validate(
        {"symbols": [SYMBOL], "start": "2023-09-01", "end": "2024-03-29", "every": 10, "horizons": [5]}
    ).config()
    job = container.evaluation.service.start(config)  # opened, never run: what a stopped server leaves
    page = client.get("/jobs").text
    assert 'id="jobs-none"' in page  # nothing runs...
    stopped = page[page.index('id="stopped-table"') :]
    assert f'<tr data-job="{job.job_id}" data-kind="evaluation" data-state="pending">' in stopped
    assert f'href="/evaluations/{job.job_id}"' in stopped  # ...but this one may resume, from here
    assert f'aria-label="Resume job {job.job_id[:12]}"' in stopped
    assert "已停止、可继续" in client.get("/jobs", headers=ZH).text

    table = client.post(f"/jobs/{job.job_id}/resume", headers={"HX-Request": "true"})
    assert table.status_code == 200 and "<html" not in table.text
    assert f'hx-post="/jobs/{job.job_id}/resume"' not in table.text  # no longer stopped: held or done
    assert wait_for_job(client, f"/api/v1/evaluations/{job.job_id}")["status"] == "done"
    deadline = time.monotonic() + 60  # the job holds the executor while it stores its scored report
    while container.jobs.is_active(job.job_id) and time.monotonic() < deadline:
        time.sleep(0.05)
    again = client.post(f"/jobs/{job.job_id}/resume")
    assert again.status_code == 409 and 'data-code="JOB_DONE"' in again.text
    assert 'id="stopped-table"' not in client.get("/jobs").text


@pytest.mark.parametrize(
    ("route", "moved"),
    [
        ("/evaluations/{id}/cancel", "/jobs/{id}/cancel?back=/evaluations/{id}"),
        ("/strategy/runs/{id}/cancel", "/jobs/{id}/cancel?back=/strategy/runs/{id}"),
        ("/strategy/runs/{id}/resume", "/jobs/{id}/resume?back=/strategy/runs/{id}"),
        ("/briefings/{id}/cancel", "/jobs/{id}/cancel?back=/briefings/{id}"),
        ("/analyses/{id}/cancel", "/jobs/{id}/cancel?back=/analyses/{id}"),
        ("/data/sync/{id}/cancel", "/jobs/{id}/cancel?back=/data/sync/{id}"),
    ],
)
def test_a_job_page_s_old_cancel_or_resume_route_redirects_to_the_jobs_route(
    client: TestClient, route: str, moved: str
) -> None:
    answer = client.post(route.format(id="j1"), follow_redirects=False)
    assert answer.status_code == 307 and answer.headers["location"] == moved.format(id="j1")


def test_back_goes_only_to_the_job_s_own_page(client: TestClient) -> None:
    """A late Cancel from a job page lands on that page; any other `back` is not followed."""
    for page in ("/evaluations/j1", "/analyses/j1", "/data/sync/j1"):
        own = client.post(f"/jobs/j1/cancel?back={page}", follow_redirects=False)
        assert own.status_code == 303 and own.headers["location"] == page
    for elsewhere in ("https://example.com/", "/evaluations/j2", "//example.com"):
        refused = client.post(f"/jobs/j1/cancel?back={elsewhere}", follow_redirects=False)
        assert refused.status_code == 404 and 'data-code="JOB_NOT_FOUND"' in refused.text
