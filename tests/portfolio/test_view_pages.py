"""The Portfolio pages over the real app and the real rules path: the form opens the view's job and
goes to its page (303), which shows the view once the job is done, in the page's language, with its
PDF link on the job's report; a refused form comes back with the reason in the page's language and
opens no job; a job opened and never run offers Resume on its page, and resuming it from there
computes it; the jobs history names the kind."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.web.i18n import LANG_COOKIE
from stockdesk.portfolio.application.view_jobs import JOB_KIND
from stockdesk.shared.db.task_store import SqlTaskStore
from tests.api_support import api_client
from tests.portfolio.test_view_entry import app  # noqa: F401  (the fixture)
from tests.portfolio.view_market import AS_OF, SYMBOLS


def settled(container: AppContainer, job_id: str) -> None:
    deadline = time.monotonic() + 120
    while container.jobs.is_active(job_id):
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_the_form_opens_a_job_whose_page_turns_into_the_view(app: AppContainer) -> None:  # noqa: F811
    client: TestClient = api_client(app)
    client.cookies.set(LANG_COOKIE, "zh")
    form = {"source": "watchlist", "watchlist": "desk", "as_of": AS_OF.isoformat(), "capital": "500,000"}
    answer = client.post("/portfolio", data=form, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    page_url = answer.headers["location"]
    job_id = page_url.removeprefix("/portfolio/jobs/")
    settled(app, job_id)
    page = client.get(page_url)
    assert (
        page.status_code == 200 and 'id="risk-table"' in page.text and 'id="progress-panel"' not in page.text
    )
    assert "当前组合与目标组合的风险" in page.text and all(f'data-symbol="{s}"' in page.text for s in SYMBOLS)
    assert f"/api/v1/portfolio/jobs/{job_id}/report?format=pdf&lang=zh" in page.text
    again = client.post("/portfolio", data=form, follow_redirects=False)
    assert again.headers["location"] == page_url  # the same request: the same job, served again
    history = client.get("/jobs/history", params={"kind": JOB_KIND})
    assert history.status_code == 200 and job_id[:12] in history.text


def test_a_refused_form_says_why_in_the_page_language_and_opens_no_job(app: AppContainer) -> None:  # noqa: F811
    client: TestClient = api_client(app)
    client.cookies.set(LANG_COOKIE, "zh")
    answer = client.post("/portfolio", data={"source": "holdings", "as_of": AS_OF.isoformat()})
    assert answer.status_code == 400 and 'data-code="PORTFOLIO_EMPTY"' in answer.text
    assert "没有可配置的内容" in answer.text and 'id="portfolio-form"' in answer.text
    missing = client.post(
        "/portfolio", data={"source": "watchlist", "watchlist": "nope", "as_of": "2024-01-02"}
    )
    assert missing.status_code == 404 and 'data-code="WATCHLIST_NOT_FOUND"' in missing.text
    assert SqlTaskStore(app.database).list_jobs(JOB_KIND) == []
    assert client.get("/portfolio/jobs/nope").status_code == 404
    assert client.get("/portfolio/jobs/nope/events").status_code == 404


def test_a_stopped_job_offers_resume_and_resuming_computes_it(app: AppContainer) -> None:  # noqa: F811
    client: TestClient = api_client(app)
    job = app.portfolio.view_jobs.start(app.portfolio.view.check(AS_OF, watchlist="desk"))
    page = client.get(f"/portfolio/jobs/{job.job_id}")
    assert page.status_code == 200 and 'id="progress-panel"' in page.text
    assert f"/jobs/{job.job_id}/resume?back=" in page.text and "0 of 5 names" in page.text
    resumed = client.post(
        f"/jobs/{job.job_id}/resume?back=/portfolio/jobs/{job.job_id}", follow_redirects=False
    )
    assert resumed.status_code == 303 and resumed.headers["location"] == f"/portfolio/jobs/{job.job_id}"
    settled(app, job.job_id)
    assert 'id="names-table"' in client.get(f"/portfolio/jobs/{job.job_id}").text
