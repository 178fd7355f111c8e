"""`stockdesk portfolio` and the portfolio view's REST job over the real rules path (the coordinator's
rules-only verdicts through `day_verdicts`) on the hand-built market: the JSON, HTML and PDF files,
the table, the progress line and Ctrl-C (interrupted, resumed by `stockdesk jobs resume`), each
refusal with its own code (one line and exit 2 on the command line; 400/404 over REST, no job
opened), and the REST job's 202, progress, view, report, cancel and 404/409."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.portfolio.application.view_jobs import JOB_KIND
from stockdesk.shared.config import Settings
from stockdesk.shared.db.task_store import SqlTaskStore
from tests.api_support import api_client, wait_for_job
from tests.portfolio.view_market import AS_OF, SYMBOLS, populate


@pytest.fixture
def app(settings: Settings) -> Iterator[AppContainer]:
    container = AppContainer(settings)
    populate(container.database)
    container.portfolio.watchlists.add("desk", list(SYMBOLS))
    yield container
    container.close()


def stockdesk(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_the_command_writes_json_and_html_and_prints_the_table(app: AppContainer, tmp_path: Path) -> None:
    day = AS_OF.isoformat()
    done = stockdesk("portfolio", "--watchlist", "desk", "--as-of", day, "--out", str(tmp_path / "p.json"))
    assert done.returncode == 0, done.stderr
    view = json.loads((tmp_path / "p.json").read_text())
    assert [a["symbol"] for a in view["allocations"]] == list(SYMBOLS)
    assert all(a["action"] in ("BUY", "SELL", "HOLD") for a in view["allocations"])
    assert view["as_of"] == day and view["book_value"] == 1_000_000
    assert 0 <= sum(a["target_weight"] for a in view["allocations"]) <= 1
    assert view["target"]["cash_weight"] == pytest.approx(
        1 - sum(a["target_weight"] for a in view["allocations"])
    )
    html = stockdesk("portfolio", "--watchlist", "desk", "--as-of", day, "--out", str(tmp_path / "p.html"))
    assert html.returncode == 0, html.stderr
    page = (tmp_path / "p.html").read_text()
    assert "<svg" in page and 'id="allocation"' in page and 'id="risk"' in page
    assert all(s in page for s in SYMBOLS)
    assert f"verdicts: {len(SYMBOLS)}/{len(SYMBOLS)} done" in done.stderr  # the progress line
    table = stockdesk("portfolio", "--watchlist", "desk", "--as-of", day, "--lang", "zh")
    assert table.returncode == 0, table.stderr
    assert "组合视图" in table.stdout and "当前组合与目标组合的风险" in table.stdout
    jobs = SqlTaskStore(app.database).list_jobs(JOB_KIND)
    assert len(jobs) == 1 and jobs[0].status.value == "done"  # the same request each time: one job


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--as-of", "2023-12-01"], "name a watchlist or the holdings"),
        (["--watchlist", "nope", "--as-of", "2023-12-01"], "no watchlist named 'nope'"),
        (["--holdings", "--as-of", "2023-12-01"], "no valued holdings"),
        (["--watchlist", "desk", "--as-of", "2023-13-01"], "is not a date"),
        (["--watchlist", "desk", "--as-of", "2023-12-01", "--capital", "0"], "capital must be > 0"),
        (["--watchlist", "desk", "--as-of", "2023-12-01", "--out", "p.xlsx"], "xlsx"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(app: AppContainer, args: list[str], words: str) -> None:
    result = stockdesk("portfolio", *args)
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert words in lines[0] or words in result.stderr


def test_ctrl_c_leaves_the_job_interrupted_and_jobs_resume_finishes_it(app: AppContainer) -> None:
    day = AS_OF.isoformat()
    env = {**os.environ, "COLUMNS": "200"}
    run = subprocess.Popen(
        [sys.executable, "-m", "stockdesk", "portfolio", "--watchlist", "desk", "--as-of", day],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    assert run.stderr is not None
    lines = []
    for line in run.stderr:
        lines.append(line)
        if line.startswith("verdicts: 1/"):
            run.send_signal(signal.SIGINT)
            break
    _, rest = run.communicate(timeout=120)
    said = "".join(lines) + rest
    assert run.returncode == 130, said
    assert "interrupted: run the same command again, or `stockdesk jobs resume" in said
    store = SqlTaskStore(app.database)
    (job,) = store.list_jobs(JOB_KIND)
    counts = store.counts(job.id)
    assert job.status.value == "interrupted" and 1 <= counts.done < len(SYMBOLS), counts
    resumed = stockdesk("jobs", "resume", job.id[:12])
    assert resumed.returncode == 0, resumed.stderr
    assert "portfolio view" in resumed.stdout.lower() and all(s in resumed.stdout for s in SYMBOLS)
    assert store.get_job(job.id).status.value == "done"  # type: ignore[union-attr]


def test_the_rest_job_answers_202_then_the_view_and_its_report(app: AppContainer) -> None:
    client: TestClient = api_client(app)
    day = AS_OF.isoformat()
    body = {"watchlist": "desk", "as_of": day, "capital": 500_000}
    started = client.post("/api/v1/portfolio/jobs", json=body)
    assert started.status_code == 202, started.text
    job_id = started.json()["job_id"]
    assert started.headers["location"] == f"/api/v1/portfolio/jobs/{job_id}"
    assert started.json()["total"] == len(SYMBOLS)
    done = wait_for_job(client, f"/api/v1/portfolio/jobs/{job_id}")
    assert done["status"] == "done" and done["done"] == len(SYMBOLS) and done["assembled"]
    view = done["view"]
    assert view["book_value"] == 500_000 and len(view["allocations"]) == len(SYMBOLS)
    again = client.post("/api/v1/portfolio/jobs", json=body)
    assert again.status_code == 202 and again.json()["job_id"] == job_id  # served again
    assert again.json()["status"] == "done"
    html = client.get(f"/api/v1/portfolio/jobs/{job_id}/report", params={"format": "html", "lang": "zh"})
    assert html.status_code == 200 and "组合视图" in html.text and "<svg" in html.text
    gone = client.post(f"/api/v1/portfolio/jobs/{job_id}/cancel")  # ended: nothing to stop
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "JOB_NOT_FOUND")
    assert client.get("/api/v1/portfolio/jobs/nope").status_code == 404
    assert (
        client.get("/api/v1/portfolio/jobs/nope/report").json()["error"]["code"] == "PORTFOLIO_JOB_NOT_FOUND"
    )
    waiting = app.portfolio.view_jobs.start(app.portfolio.view.check(AS_OF, watchlist="desk", capital=7e5))
    early = client.get(f"/api/v1/portfolio/jobs/{waiting.job_id}/report")
    assert (early.status_code, early.json()["error"]["code"]) == (409, "PORTFOLIO_JOB_NOT_FINISHED")


def test_the_rest_job_is_cancelled_and_posting_again_resumes_it(app: AppContainer) -> None:
    client: TestClient = api_client(app)
    body = {"watchlist": "desk", "as_of": AS_OF.isoformat()}
    job_id = client.post("/api/v1/portfolio/jobs", json=body).json()["job_id"]
    stop = client.post(f"/api/v1/portfolio/jobs/{job_id}/cancel")  # 307 to the jobs route
    assert stop.status_code in (200, 202), stop.text
    stopped = wait_for_job(client, f"/api/v1/portfolio/jobs/{job_id}", until=("cancelled", "done"))
    assert stopped["status"] == "cancelled" and stopped["done"] < len(SYMBOLS) and stopped["view"] is None
    assert client.post("/api/v1/portfolio/jobs", json=body).json()["job_id"] == job_id
    done = wait_for_job(client, f"/api/v1/portfolio/jobs/{job_id}")
    assert done["status"] == "done" and done["view"] is not None


def test_bad_requests_are_refused_before_any_job_opens(app: AppContainer) -> None:
    client: TestClient = api_client(app)
    day = AS_OF.isoformat()
    for body, status, code in [
        ({"as_of": day}, 400, "PORTFOLIO_SOURCE"),
        ({"as_of": day, "watchlist": "desk", "holdings": True}, 400, "PORTFOLIO_SOURCE"),
        ({"as_of": day, "holdings": True}, 400, "PORTFOLIO_EMPTY"),
        ({"as_of": day, "watchlist": "nope"}, 404, "WATCHLIST_NOT_FOUND"),
        ({"as_of": "2000-01-03", "watchlist": "desk"}, 400, "PORTFOLIO_EMPTY"),
    ]:
        answer = client.post("/api/v1/portfolio/jobs", json=body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), body
    for body in ({"as_of": "0", "watchlist": "desk"}, {"as_of": day, "watchlist": "desk", "capital": -1}):
        refused = client.post("/api/v1/portfolio/jobs", json=body)
        assert refused.status_code == 400 and refused.json()["error"]["code"] != "PORTFOLIO_SOURCE", body
    assert SqlTaskStore(app.database).list_jobs(JOB_KIND) == []
    assert client.get("/api/v1/portfolio", params={"as_of": day, "watchlist": "desk"}).status_code == 404
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    schema = paths["/api/v1/portfolio/jobs"]["post"]
    assert {"202", "400", "404"} <= set(schema["responses"])
    assert "PORTFOLIO_SOURCE" in schema["responses"]["400"]["description"]
    assert "409" in paths["/api/v1/portfolio/jobs/{job_id}/report"]["get"]["responses"]
    assert "/api/v1/portfolio" not in paths
