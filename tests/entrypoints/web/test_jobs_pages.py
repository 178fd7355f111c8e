"""The jobs page over HTTP: every active job of this server with its kind, state and page, a Cancel that
reaches the job, its own polling (the table alone for htmx), and 404 for a job that is not active."""

from __future__ import annotations

import re
import threading
import time

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.coordinator.support import pipeline

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
