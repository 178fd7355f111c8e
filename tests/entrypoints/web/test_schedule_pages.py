"""The Schedules pages: the list (when, what, last run, each channel's health with a failing one
flagged in words), a schedule's runs with their reports, Run now on the job executor and its
refusals in the page's language, and the run reports served from the run's folder only."""

from __future__ import annotations

import re
import time
from datetime import date
from pathlib import Path
from urllib.parse import urljoin

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.scheduling import scheduling_of
from stockdesk.entrypoints.web.i18n import LANG_COOKIE
from stockdesk.entrypoints.web.pages.schedules import report_path
from stockdesk.scheduling.application import RunStatus
from stockdesk.shared.access import AuthMode
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.entrypoints.web.schedule_support import DAY, NAME, desk_with_runs
from tests.scheduling.market import SYMBOLS

SECRET = "TOP-SECRET-OUTSIDE-THE-RUN"


def test_the_list_and_a_schedule_page_in_both_languages(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with desk_with_runs(settings.home, monkeypatch) as desk:
        client = api_client(desk.app)
        listed = client.get("/schedules")
        assert listed.status_code == 200
        row = listed.text.split(f'data-schedule="{NAME}"', 1)[1].split("</tr>", 1)[0]
        assert f'href="/schedules/{NAME}"' in row and ">core<" in row and "rules (no LLM)" in row
        assert "2020-06-16" in row and "done" in row  # the last run
        # the next fire is 16:30 Shanghai time, after now
        assert re.search(r"\d{4}-\d{2}-\d{2} 16:30 \+0800", row), row
        # the failing channel in red, with the words; the healthy one ok
        assert 'data-channel="down" data-state="failing" class="failing"' in row
        assert "FAILING: 3 failed in a row" in row
        assert 'data-channel="up" data-state="ok"' in row
        page = client.get(f"/schedules/{NAME}")
        assert page.status_code == 200
        days = re.findall(r'<tr id="run-([\d-]+)"', page.text)
        assert days == ["2020-06-16", "2020-06-15", "2020-06-12"]
        run = page.text.split('id="run-2020-06-16"', 1)[1].split("</tr>", 1)[0]
        assert all(f"<code>{s}</code>" in run for s in SYMBOLS)
        assert 'data-delivery="failed" class="failing"' in run and "failed after 1 attempts" in run
        assert "sent (1 attempts)" in run
        assert 'href="/jobs/history?kind=scheduled_run"' in run
        assert f'href="/schedules/{NAME}/2020-06-16/"' in run
        assert "no data provider configured: not synced" not in run  # no sync step without providers
        client.cookies.set(LANG_COOKIE, "zh")
        zh = client.get("/schedules")
        assert "定时任务" in zh.text and "持续失败：连续失败 3 次" in zh.text and "FAILING" not in zh.text
        zh_page = client.get(f"/schedules/{NAME}").text
        assert "立即运行" in zh_page and "尝试 1 次后失败" in zh_page and "failed after" not in zh_page
        missing = client.get("/schedules/no-such-schedule")
        assert missing.status_code == 404 and "没有名为" in missing.text


def _wait_ended(desk_app, day: date) -> RunStatus:  # type: ignore[no-untyped-def]
    store = scheduling_of(desk_app).store
    deadline = time.monotonic() + 120
    while (run := store.run(NAME, day)) is None or run.status in (RunStatus.CLAIMED, RunStatus.RUNNING):
        assert time.monotonic() < deadline, run
        time.sleep(0.1)
    return run.status


def test_run_now_runs_the_day_as_a_job_and_refuses_a_day_already_run_in_the_pages_language(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with desk_with_runs(settings.home, monkeypatch, days=(DAY,)) as desk:
        client = api_client(desk.app)
        day = date(2020, 6, 11)
        started = client.post(f"/schedules/{NAME}/run", data={"day": day.isoformat()}, follow_redirects=False)
        assert started.status_code == 303 and started.headers["location"] == "/jobs", started.text
        assert _wait_ended(desk.app, day) is RunStatus.DONE
        (run,) = [r for r in scheduling_of(desk.app).runs.runs(NAME) if r.day == day]
        assert run.job_id and len(run.rows) == len(SYMBOLS)
        assert (settings.home / "reports" / "schedules" / NAME / "2020-06-11" / "index.html").is_file()
        # the jobs pages link the job to its run's row
        follow = client.get(f"/schedules/jobs/{run.job_id}", follow_redirects=False)
        assert follow.status_code == 303 and follow.headers["location"] == f"/schedules/{NAME}#run-2020-06-11"
        history = client.get("/jobs/history?kind=scheduled_run")
        assert history.status_code == 200 and f'href="/schedules/jobs/{run.job_id}"' in history.text
        # a Saturday: skipped at once, no job; the page shows why
        saturday = client.post(f"/schedules/{NAME}/run", data={"day": "2020-06-13"}, follow_redirects=False)
        assert saturday.status_code == 303 and saturday.headers["location"].endswith("#run-2020-06-13")
        page = client.get(f"/schedules/{NAME}").text
        assert "not a trading day in the store: no bars for" in page and 'data-status="skipped"' in page
        # refusals come back on the page, in its language, nothing started
        client.cookies.set(LANG_COOKIE, "zh")
        again = client.post(f"/schedules/{NAME}/run", data={"day": DAY.isoformat()})
        assert again.status_code == 409 and 'data-code="SCHEDULE_RUN_EXISTS"' in again.text
        assert "已有一次运行" in again.text and "already has a run" not in again.text
        bad = client.post(f"/schedules/{NAME}/run", data={"day": "2020-02-30"})
        assert bad.status_code == 400 and 'data-code="INVALID_DATE"' in bad.text and "不是日期" in bad.text
        assert 'value="2020-02-30"' in bad.text  # the form keeps what was typed
        unknown = client.post("/schedules/nope/run", data={"day": DAY.isoformat()})
        assert unknown.status_code == 404 and "没有名为" in unknown.text
        assert len(scheduling_of(desk.app).runs.runs(NAME)) == 3  # 06-16, 06-11, the skipped 06-13


def test_the_reports_are_served_and_the_index_links_reach_each_symbols_report(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with desk_with_runs(settings.home, monkeypatch, days=(DAY,)) as desk:
        client = api_client(desk.app)
        base = f"/schedules/{NAME}/{DAY.isoformat()}/"
        index = client.get(base)
        assert index.status_code == 200 and index.headers["content-type"].startswith("text/html")
        assert "default-src 'none'" in index.headers["content-security-policy"]
        assert client.get(base + "index.html").text == index.text
        links = [h for h in re.findall(r'href="([^"#]+)"', index.text) if h.endswith(".html")]
        assert sorted(links) == sorted(f"{s}-{DAY.isoformat()}.html" for s in SYMBOLS), links
        for link in links:
            report = client.get(urljoin(base, link))
            assert report.status_code == 200 and link.split("-")[0] in report.text
        # without the slash the folder's address is moved to it, so the relative links resolve
        moved = client.get(base.rstrip("/"), follow_redirects=False)
        assert moved.status_code in (301, 307, 308) and moved.headers["location"].endswith(base)


def _plant(home: Path) -> Path:
    """Files outside the run's folder, each holding SECRET: beside the reports, above them, outside the
    home; a symlink in the run's folder to one outside, and a run folder that is a symlink out."""
    root = home / "reports" / "schedules"
    folder = root / NAME / DAY.isoformat()
    outside = home.parent / "outside"
    outside.mkdir()
    for path in (root / "secret.html", root / NAME / "secret.html", home / "reports" / "secret.html",
                 outside / "secret.html", outside / "index.html"):  # fmt: skip
        path.write_text(f"<p>{SECRET}</p>", encoding="utf-8")
    (folder / "link.html").symlink_to(outside / "secret.html")
    (root / NAME / "2020-06-17").symlink_to(outside, target_is_directory=True)
    return outside


def test_a_path_out_of_the_runs_folder_is_a_404_never_the_file(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with desk_with_runs(settings.home, monkeypatch, days=(DAY,)) as desk:
        outside = _plant(settings.home)
        client = api_client(desk.app)
        day = DAY.isoformat()
        attempts = [
            f"/schedules/{NAME}/{day}/..%2Fsecret.html",
            f"/schedules/{NAME}/{day}/..%2F..%2Fsecret.html",
            f"/schedules/{NAME}/{day}/..%2F..%2F..%2Fsecret.html",
            f"/schedules/{NAME}/{day}/%2E%2E%2F%2E%2E%2Fsecret.html",
            f"/schedules/{NAME}/{day}/..%5C..%5Csecret.html",
            f"/schedules/{NAME}/{day}/%2F{str(outside / 'secret.html').lstrip('/').replace('/', '%2F')}",
            f"/schedules/{NAME}/{day}/{outside / 'secret.html'!s}",
            f"/schedules/{NAME}/{day}//{str(outside / 'secret.html').lstrip('/')}",
            f"/schedules/{NAME}/..%2F{NAME}/secret.html",
            f"/schedules/{NAME}/{day}%2F..%2F..%2F/secret.html",
            f"/schedules/..%2F..%2Freports/{day}/secret.html",
            f"/schedules/{NAME}/{day}/link.html",  # a symlink out of the folder
            f"/schedules/{NAME}/2020-06-17/index.html",  # a run folder that is a symlink out
            f"/schedules/{NAME}/2020-06-17/secret.html",
            f"/schedules/{NAME}/2020-02-30/index.html",  # no such date
            f"/schedules/{NAME}/20200616/index.html",  # not ISO
            f"/schedules/-{NAME}/{day}/index.html",  # not a schedule name
            f"/schedules/{NAME}/{day}/index.htm",
            f"/schedules/{NAME}/{day}/..html",
            f"/schedules/{NAME}/{day}/no-such-report.html",
        ]
        for url in attempts:
            answer = client.get(url)
            assert answer.status_code == 404, (url, answer.status_code)
            assert SECRET not in answer.text, url
        client.cookies.set(LANG_COOKIE, "zh")
        zh = client.get(f"/schedules/{NAME}/{day}/link.html")
        assert zh.status_code == 404 and "此地址没有内容" in zh.text
        # the check itself, with what no URL can carry
        root = settings.home / "reports" / "schedules"
        for name, day_, file in [(NAME, day, "../secret.html"), (NAME, day, str(outside / "secret.html")),
                                 ("..", day, "secret.html"), (NAME, "..", "secret.html"),
                                 (NAME, day, "link.html"), (NAME, "2020-06-17", "index.html")]:  # fmt: skip
            with pytest.raises(Exception) as refused:
                report_path(root, name, day_, file)
            assert getattr(refused.value, "http_status", None) == 404
        assert report_path(root, NAME, day, "index.html") == (root / NAME / day / "index.html").resolve()


def test_the_pages_and_reports_need_a_session_where_the_server_needs_keys(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    with desk_with_runs(settings.home, monkeypatch, days=(DAY,)) as desk:
        client: TestClient = api_client(desk.app, auth=AuthMode.ALL)
        for url in ("/schedules", f"/schedules/{NAME}", f"/schedules/{NAME}/{DAY.isoformat()}/index.html"):
            answer = client.get(url, follow_redirects=False)
            assert answer.status_code == 303 and answer.headers["location"].startswith("/login"), url
        posted = client.post(f"/schedules/{NAME}/run", data={"day": "2020-06-15"}, follow_redirects=False)
        assert posted.status_code == 401
        assert [r.day for r in scheduling_of(desk.app).runs.runs(NAME)] == [DAY]
