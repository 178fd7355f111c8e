"""The job history over HTTP (/jobs/history, linked from /jobs): every ended job of the task store,
newest change first, with its kind, page, status, times, tasks done and outcome; filters by kind and
status; pages; and 400s with their own codes, in the page's language, for a bad filter or page."""

from __future__ import annotations

import html
import re
import time

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.web.i18n import catalog
from stockdesk.evaluation.presentation.rest import EvaluationBody
from stockdesk.shared.config import Settings
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.tasks import JobStatus
from tests.api_support import api_client, wait_for_job
from tests.coordinator.support import SYMBOL, pipeline

ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}
ROW = re.compile(
    r'<tr data-job="(\w+)" data-kind="([\w-]+)" data-state="(\w+)" data-done="(\d+)" data-total="(\d+)">'
)


@pytest.fixture
def container(settings: Settings) -> AppContainer:
    built, _, _ = pipeline(settings)
    return built


@pytest.fixture
def client(container: AppContainer) -> TestClient:
    return api_client(container)


def ended(store: SqlTaskStore, kind: str, n: int, status: JobStatus, error: str | None = None) -> str:
    """A job of `kind` with three tasks, `n` of them done, ended with `status` (a moment after the last)."""
    job, _ = store.open_with_tasks(
        kind, {"n": n, "status": status.value, "at": time.time_ns()}, ["a", "b", "c"]
    )
    store.complete(job.id, {key: {} for key in ("a", "b", "c")[:n]})
    if status is JobStatus.FAILED:
        store.fail(job.id, {"c": "RuntimeError: provider down"})
    time.sleep(0.01)  # updated_at orders the history
    store.set_job_status(job.id, status, error)
    return job.id


def rows(page: str) -> list[tuple[str, ...]]:
    return ROW.findall(page)


def test_ended_jobs_of_every_kind_are_listed_newest_first_with_progress_and_outcome(
    client: TestClient, container: AppContainer
) -> None:
    config = EvaluationBody.model_validate(
        {"symbols": [SYMBOL], "start": "2023-09-01", "end": "2024-03-29", "every": 10, "horizons": [5]}
    ).config()
    evaluation = container.evaluation.service.start(config)
    assert client.post(f"/jobs/{evaluation.job_id}/resume").status_code in (200, 303)
    assert wait_for_job(client, f"/api/v1/evaluations/{evaluation.job_id}")["status"] == "done"
    store = SqlTaskStore(container.database)
    failed = ended(store, "sync", 2, JobStatus.FAILED, "1 of 3 tasks failed after 3 attempts")
    cancelled = ended(store, "batch_analyze", 1, JobStatus.CANCELLED, "cancelled by the user")
    interrupted = ended(
        store, "briefing", 0, JobStatus.INTERRUPTED, "interrupted: the process running it stopped"
    )
    running, _ = store.open_with_tasks("sync", {"running": True}, ["a"])
    store.start_run(running.id)  # not ended: the jobs page's, not the history's
    store.open_with_tasks("evaluate", {"pending": True}, ["a"])  # opened, never run: not ended either

    page = client.get("/jobs/history")
    assert page.status_code == 200
    listed = rows(page.text)
    assert [(r[0], r[1], r[2]) for r in listed] == [
        (interrupted, "briefing", "interrupted"),
        (cancelled, "batch_analyze", "cancelled"),
        (failed, "sync", "failed"),
        (evaluation.job_id, "evaluation", "done"),  # stored as `evaluate`, named as its kind is
    ]
    done_total = {r[0]: (int(r[3]), int(r[4])) for r in listed}
    counts = container.evaluation.service.status(evaluation.job_id)
    assert done_total[evaluation.job_id] == (counts.done, counts.total) and counts.total > 0
    assert done_total[failed] == (2, 3) and done_total[interrupted] == (0, 3)
    assert (
        f'href="/evaluations/{evaluation.job_id}"' in page.text and f'href="/data/sync/{failed}"' in page.text
    )
    assert f'href="/briefings/{interrupted}"' in page.text
    assert f'<a href="/batches/{cancelled}"><code>{cancelled[:12]}</code></a>' in page.text  # its batch page
    assert "1 of 3 tasks failed after 3 attempts" in page.text and "cancelled by the user" in page.text
    assert f"All {counts.total} tasks done." in page.text
    assert '<progress class="job-bar" value="2" max="3" aria-label="2 of 3 done">' in page.text
    assert "Jobs 1–4 of 4" in page.text and "Batch analysis" in page.text

    zh = client.get("/jobs/history", headers=ZH).text
    assert "任务历史" in zh and "批量分析" in zh and "已中断" in zh
    jobs = client.get("/jobs").text
    assert '<a href="/jobs/history" id="history-link">' in jobs


def test_the_history_filters_by_kind_and_status(client: TestClient, container: AppContainer) -> None:
    store = SqlTaskStore(container.database)
    done = ended(store, "evaluate", 3, JobStatus.DONE)
    failed = ended(store, "evaluate", 2, JobStatus.FAILED, "1 of 3 tasks failed after 3 attempts")
    sync = ended(store, "sync", 1, JobStatus.FAILED, "provider down")
    assert [r[0] for r in rows(client.get("/jobs/history?kind=evaluation").text)] == [failed, done]
    time.sleep(0.01)
    store.set_job_status(done, JobStatus.DONE)  # the oldest job changed last: it comes first now
    assert [r[0] for r in rows(client.get("/jobs/history?kind=evaluation").text)] == [done, failed]
    assert [r[0] for r in rows(client.get("/jobs/history?status=failed").text)] == [sync, failed]
    both = client.get("/jobs/history?kind=evaluation&status=done").text
    assert [r[0] for r in rows(both)] == [done]
    assert '<option value="evaluation" selected>' in both and '<option value="done" selected>' in both
    none = client.get("/jobs/history?kind=briefing")  # a kind of this server with no job yet
    assert none.status_code == 200 and rows(none.text) == [] and 'id="history-none"' in none.text


def test_the_history_comes_in_pages(client: TestClient, container: AppContainer) -> None:
    store = SqlTaskStore(container.database)
    made = [ended(store, "sync", 1, JobStatus.DONE) for _ in range(23)][::-1]  # newest first
    first = client.get("/jobs/history?status=done").text
    assert [r[0] for r in rows(first)] == made[:20]
    assert "Jobs 1–20 of 23" in first and "page 1 of 2" in first
    assert 'href="/jobs/history?status=done&amp;page=2" rel="next"' in first and 'rel="prev"' not in first
    second = client.get("/jobs/history?status=done&page=2").text
    assert [r[0] for r in rows(second)] == made[20:]
    assert "Jobs 21–23 of 23" in second and 'href="/jobs/history?status=done" rel="prev"' in second
    assert 'rel="next"' not in second
    beyond = client.get("/jobs/history?page=7")
    assert beyond.status_code == 200 and rows(beyond.text) == [] and 'id="history-beyond"' in beyond.text


@pytest.mark.parametrize(
    ("query", "code", "key", "values"),
    [
        ("kind=nope", "BAD_JOB_KIND", "jobs.history.error.bad_job_kind", {"value": "nope"}),
        ("status=running", "BAD_JOB_STATUS", "jobs.history.error.bad_job_status", {"value": "running"}),
        ("page=0", "BAD_PAGE", "jobs.history.error.bad_page", {"value": "0"}),
        ("page=two", "BAD_PAGE", "jobs.history.error.bad_page", {"value": "two"}),
    ],
)
def test_a_bad_filter_or_page_is_400_with_its_code_in_the_page_s_language(
    client: TestClient, query: str, code: str, key: str, values: dict[str, str]
) -> None:
    for lang, headers in (("en", {}), ("zh", ZH)):
        answer = client.get(f"/jobs/history?{query}", headers=headers)
        assert answer.status_code == 400 and f'data-code="{code}"' in answer.text
        message = re.search(r'<p class="error-message">(.*?)</p>', answer.text, re.S)
        assert message is not None
        text = html.unescape(message.group(1))
        assert text.startswith(catalog(lang)[key].split("{")[0]) and values["value"] in text, text
        assert 'id="history-table"' not in answer.text and 'action="/jobs/history"' in answer.text
