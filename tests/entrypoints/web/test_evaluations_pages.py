"""The evaluation dashboard over HTTP: start from the form, follow the job, read the report; errors.

A real app and SQLite store (600001.SH, 300 business days to 2024-06-28); evaluations run in rules
mode on the app's own job executor, as they do in the server.
"""

from __future__ import annotations

import re
import time

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.web.i18n import catalog
from stockdesk.entrypoints.web.pages.evaluations_view import (
    CHART_IDS,
    EXPERTS,
    MODES,
    PAGE_SIZE,
    SET_NAMES,
    STATS,
    VERDICT_SORTS,
)
from stockdesk.evaluation.application.scores.actions import hit_flags
from stockdesk.evaluation.infrastructure.persistence.report_store import SqlEvaluationReportStore
from stockdesk.evaluation.presentation.jobs import KIND
from stockdesk.shared.config import Settings
from stockdesk.shared.exports import chromium_path
from tests.api_support import api_client, wait_for_job
from tests.coordinator.support import SYMBOL, pipeline
from tests.entrypoints.web.lab_support import events, read_events_in_background, slot_taken, spy

FORM = {
    "symbols": SYMBOL, "start": "2023-09-01", "end": "2024-03-29", "every": "10", "horizons": "5,20",
    "mode": "rules", "benchmark": "",
}  # fmt: skip
ZH = {"Accept-Language": "zh-CN,zh;q=0.9"}


@pytest.fixture
def container(settings: Settings) -> AppContainer:
    built, _, _ = pipeline(settings)
    return built


@pytest.fixture
def client(container: AppContainer) -> TestClient:
    return api_client(container)


def settled(
    client: TestClient, job_id: str, until: tuple[str, ...] = ("done", "completed", "failed")
) -> dict:
    """The evaluation once the server's job is over: its points computed, then its report scored and
    stored (the job does that after the last point, while the executor still holds it)."""
    deadline = time.monotonic() + 60.0
    while client.get(f"/api/v1/jobs/{job_id}").json().get("live") and time.monotonic() < deadline:
        time.sleep(0.05)
    return wait_for_job(client, f"/api/v1/evaluations/{job_id}", until=until)


def start(client: TestClient, form: dict[str, str] = FORM) -> str:
    response = client.post("/evaluations", data=form, follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert re.fullmatch(r"/evaluations/[0-9a-f]{32}", location)
    return location.rsplit("/", 1)[1]


def test_start_an_evaluation_in_rules_mode_and_read_its_charts_hit_rates_and_skill(
    client: TestClient,
) -> None:
    form_page = client.get("/evaluations")
    assert form_page.status_code == 200
    for label in (
        'for="ev-symbols"',
        'for="ev-start"',
        'for="ev-horizons"',
        'for="ev-mode"',
        'for="ev-benchmark"',
    ):
        assert label in form_page.text
    assert (
        'data-suggest="/symbols/suggest"' in form_page.text
        and '<option value="rules" selected>' in form_page.text
    )

    job_id = start(client)
    finished = settled(client, job_id, until=("done", "failed"))
    assert finished["status"] == "done" and finished["done"] == finished["total"] > 0

    page = client.get(f"/evaluations/{job_id}").text
    assert 'data-state="done"' in page and "sse-connect" not in page  # finished: nothing left to follow
    charts = re.findall(r'data-spec="([^"]*)"', page)
    assert len(charts) == 3 and all("&#34;panels&#34;" in c for c in charts)
    assert {"equity", "reliability", "hit-rate"} == set(re.findall(r"&#34;id&#34;:&#34;([a-z-]+)&#34;", page))
    assert "Not drawn: rank IC per date" in page  # one symbol: no cross-sectional IC, and the page says so
    hit_rates = page[page.index('id="hit-rates"') : page.index('id="by-action-heading"')]
    assert hit_rates.count("<tr>") == 1 + 3 * 2  # header + (rules, always HOLD, buy & hold) x 2 horizons
    assert "rules mode" in hit_rates and "100.0%" in hit_rates
    by_action = page[page.index('id="by-action"') : page.index('id="skill"')]
    report = client.get(f"/api/v1/evaluations/{job_id}/report").json()
    shown = 0
    for name, by_horizon in report["metrics"].items():
        for horizon, metrics in by_horizon.items():
            for action, figures in metrics["detail"]["actions"].items():
                if figures["count"]:
                    shown += 1
                    assert f"{figures['hit_rate'] * 100:.1f}%" in by_action, (name, horizon, action)
    assert shown and by_action.count("<tr data-action=") == shown  # every action that occurred, once
    skill = page[page.index('id="skill"') : page.index('class="attribution"')]
    assert "always HOLD" in skill and "not distinguishable from the rules baseline" in skill
    assert page.count('class="attribution"') == 2 and "Valuation modeler" in page  # by its name
    assert "valuation_modeler" not in page.split('id="report"', 1)[1]
    assert "Mean excess (all points)" in hit_rates  # the same for every set: labelled as such
    assert f'href="/api/v1/evaluations/{job_id}/report?format=html"' in page
    assert client.get(f"/api/v1/evaluations/{job_id}/report?format=html").status_code == 200
    assert f'href="/api/v1/evaluations/{job_id}/report?format=pdf" download' in page
    if chromium_path() is not None:  # the report printed, saved under the job's name
        pdf = client.get(f"/api/v1/evaluations/{job_id}/report?format=pdf")
        assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
        assert pdf.headers["content-disposition"] == f'attachment; filename="evaluation-{job_id[:12]}.pdf"'

    listed = client.get("/evaluations").text
    assert f'href="/evaluations/{job_id}"' in listed and f"{finished['done']} / {finished['total']}" in listed
    [row] = client.get("/api/v1/evaluations").json()  # the list's REST twin
    assert row["job_id"] == job_id and row["created_at"] and row["status"] == "done"


@pytest.mark.parametrize(
    ("changes", "status", "code"),
    [
        ({"symbols": "688999.SH"}, 404, "UNKNOWN_SYMBOL"),
        ({"start": "2030-01-01", "end": "2030-02-01"}, 400, "EMPTY_WINDOW"),
        ({"start": "1990-01-02", "end": "2024-06-28"}, 422, "WINDOW_TOO_LONG"),
        ({"horizons": "5,abc"}, 400, "BAD_REQUEST"),
        ({"start": "2024-03-29", "end": "2023-09-01"}, 400, "INVALID_EVALUATION"),
    ],
)
def test_a_refused_form_shows_why_with_its_status_and_starts_nothing(
    client: TestClient, container: AppContainer, changes: dict[str, str], status: int, code: str
) -> None:
    response = client.post("/evaluations", data={**FORM, **changes}, follow_redirects=False)
    assert response.status_code == status
    assert f'data-code="{code}"' in response.text and 'class="error-box"' in response.text
    assert f'value="{changes.get("symbols", SYMBOL)}"' in response.text  # the form comes back filled in
    assert client.get("/api/v1/evaluations").json() == [] and container.jobs.active() == []


def test_a_running_evaluation_is_followed_over_sse_cancelled_and_resumed(
    client: TestClient, container: AppContainer
) -> None:
    with slot_taken(container.jobs, KIND) as release:
        job_id = start(client)  # waits behind the blocker: queued, so live
        page = client.get(f"/evaluations/{job_id}").text
        assert f'sse-connect="/evaluations/{job_id}/events"' in page and 'data-state="queued"' in page
        cancel = f"/jobs/{job_id}/cancel?back=/evaluations/{job_id}"  # the general jobs route
        assert f'data-done-url="/evaluations/{job_id}"' in page and f'action="{cancel}"' in page

        first_read = spy(container.evaluation.service, "status")
        reader, found = read_events_in_background(client, f"/evaluations/{job_id}/events")
        assert first_read.wait(30)
        cancelled = client.post(cancel, follow_redirects=False)
        assert cancelled.status_code == 303 and cancelled.headers["location"] == f"/evaluations/{job_id}"
        release.set()
        reader.join(30)

    assert [name for name, _ in found][-1] == "done" and found[-1][1] == "finished"
    progress = [data for name, data in found if name == "progress"]
    assert re.search(r'data-state="(queued|cancelling)"', progress[0])  # seen live, over SSE
    assert 'data-state="pending"' in progress[-1]  # cancelled before it ran: every point still to do

    stopped = client.get(f"/evaluations/{job_id}").text
    assert "sse-connect" not in stopped and 'id="resume"' in stopped and 'id="report"' not in stopped
    resume = f"/jobs/{job_id}/resume?back=/evaluations/{job_id}"
    assert f'action="{resume}"' in stopped
    resumed = client.post(resume, follow_redirects=False)
    assert resumed.headers["location"] == f"/evaluations/{job_id}"  # the same durable job
    assert settled(client, job_id)["status"] == "done"
    assert 'id="report"' in client.get(f"/evaluations/{job_id}").text


def test_the_events_of_a_finished_evaluation_are_its_state_then_done(client: TestClient) -> None:
    job_id = start(client)
    settled(client, job_id)
    found = events(client, f"/evaluations/{job_id}/events")
    assert [name for name, _ in found] == ["progress", "done"] and 'data-state="done"' in found[0][1]


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/evaluations/nope"), ("GET", "/evaluations/nope/events"), ("POST", "/evaluations/nope/cancel")],
)
def test_an_unknown_evaluation_is_a_404_page(client: TestClient, method: str, path: str) -> None:
    response = client.request(method, path)
    assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")
    assert 'data-code="EVALUATION_NOT_FOUND"' in response.text


def test_the_dashboard_and_report_speak_chinese(client: TestClient) -> None:
    form_page = client.get("/evaluations", headers=ZH).text
    assert "开始评估" in form_page and "股票代码" in form_page and "规则" in form_page
    refused = client.post("/evaluations", data={**FORM, "symbols": "688999.SH"}, headers=ZH)
    assert refused.status_code == 404 and "未能开始（404）" in refused.text
    job_id = start(client)
    settled(client, job_id)
    page = client.get(f"/evaluations/{job_id}", headers=ZH).text
    assert (
        "命中率" in page and "相对规则基线的技能" in page and "各专家归因" in page and "始终持有观望" in page
    )
    assert "可靠性（20 日）" in page and "&#34;name&#34;:&#34;始终持有观望&#34;" in page  # the charts too
    assert "估值建模师" in page and "Reliability" not in page


def test_every_label_the_pages_build_from_a_value_is_in_both_catalogs() -> None:
    """Keys like `evaluations.mode.<mode>` are built at render time: check every value they can take."""
    keys = [
        *(f"evaluations.mode.{m}" for m in MODES),
        *(f"evaluations.set.{name}" for name in SET_NAMES),
        *(f"evaluations.stat.{stat}" for stat in STATS),
        *(f"evaluations.missing.{chart}" for chart in CHART_IDS),
        *(f"evaluations.verdicts.col.{sort}" for sort in VERDICT_SORTS),
        *(f"analyze.expert.{name}" for name in EXPERTS),
    ]
    for lang in ("en", "zh"):
        assert [k for k in keys if k not in catalog(lang)] == [], lang


def cells(page: str, table_id: str) -> list[list[str]]:
    """The body rows of one table as lists of cell texts (tags dropped)."""
    body = page[page.index(f'id="{table_id}"') :]
    body = body[body.index("<tbody>") : body.index("</tbody>")]
    return [
        [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def percent(text: str) -> float | None:
    return None if text == "–" else float(text.rstrip("%")) / 100


def test_the_verdict_list_shows_every_point_once_sorted_on_the_server_and_paged(
    client: TestClient, container: AppContainer
) -> None:
    job_id = start(client, {**FORM, "every": "2"})
    settled(client, job_id)
    assert SqlEvaluationReportStore(container.database).basis(job_id) is not None  # scored by the job itself
    points = client.get(f"/api/v1/evaluations/{job_id}/report").json()["points"]
    assert len(points) > PAGE_SIZE

    first = client.get(f"/evaluations/{job_id}?h=20&sort=excess&dir=desc").text
    assert f"Verdicts ({len(points)})" in first and f"1–{PAGE_SIZE} of {len(points)}" in first
    assert "no research session is stored" in first and 'href="/sessions/' not in first  # rules mode
    rows = cells(first, "verdict-list")
    assert len(rows) == PAGE_SIZE
    excess = [percent(r[5]) for r in rows]
    known = [x for x in excess if x is not None]
    assert known == sorted(known, reverse=True) and excess[: len(known)] == known  # unknown ones last
    best = max(p["excess_returns"]["20"] for p in points if p["excess_returns"]["20"] is not None)
    assert excess[0] == pytest.approx(best, abs=5e-5)
    assert 'aria-sort="descending"' in first
    assert f'href="/evaluations/{job_id}?h=20&amp;sort=excess&amp;dir=asc&amp;page=1#verdicts"' in first
    assert f'href="/evaluations/{job_id}?h=20&amp;sort=excess&amp;dir=desc&amp;page=2#verdicts"' in first

    second = cells(client.get(f"/evaluations/{job_id}?h=20&sort=excess&dir=desc&page=2").text, "verdict-list")
    listed = [(r[0], r[1]) for r in rows + second]
    assert sorted(listed) == sorted((p["symbol"], p["as_of"]) for p in points)  # each point once

    by_date = cells(client.get(f"/evaluations/{job_id}?h=5").text, "verdict-list")  # default: date, rising
    ordered = sorted(points, key=lambda p: (p["as_of"], p["symbol"]))[:PAGE_SIZE]
    assert [(r[0], r[1], r[2]) for r in by_date] == [(p["symbol"], p["as_of"], p["action"]) for p in ordered]
    for row, point in zip(by_date, ordered, strict=True):
        forward = point["forward_returns"]["5"]
        assert percent(row[4]) == (None if forward is None else pytest.approx(forward, abs=5e-5))
        expected = (
            "–" if forward is None else ("hit" if hit_flags([point["action"]], [forward])[0] else "miss")
        )
        assert row[6] == expected


@pytest.mark.parametrize(
    ("query", "code", "zh_words"),
    [
        ("?sort=confidence", "BAD_SORT", "结论不能按“confidence”排序"),
        ("?sort=excess&dir=up", "BAD_SORT", "未知的排序方向“up”"),
        ("?h=7", "BAD_HORIZON", "本次评估没有持有期“7”"),
        ("?page=0", "BAD_PAGING", "结论没有第“0”页"),
        ("?page=abc", "BAD_PAGING", "结论没有第“abc”页"),
        ("?page=99", "BAD_PAGING", "结论没有第“99”页：请选择 1 … 1"),
    ],
)
def test_a_bad_sort_horizon_or_page_is_a_400_with_its_code_in_the_pages_language(
    client: TestClient, query: str, code: str, zh_words: str
) -> None:
    job_id = start(client)
    settled(client, job_id)
    english = client.get(f"/evaluations/{job_id}{query}")
    assert english.status_code == 400 and f'data-code="{code}"' in english.text
    assert "choose" in english.text and 'id="report"' not in english.text
    chinese = client.get(f"/evaluations/{job_id}{query}", headers=ZH)
    assert chinese.status_code == 400 and zh_words in chinese.text


def test_the_portfolio_window_is_cut_at_the_evaluations_end_and_labelled(client: TestClient) -> None:
    job_id = start(client)
    settled(client, job_id)
    report = client.get(f"/api/v1/evaluations/{job_id}/report").json()
    window = report["portfolio"]["window"]
    last = max(p["as_of"] for p in report["points"])
    assert window["complete"] is True and window["start"] == min(p["as_of"] for p in report["points"])
    assert last < window["end"] < "2024-06-28"  # ends after the last verdict's period, not at the newest bar
    assert report["portfolio"]["dates"][-1] == window["end"]
    page = client.get(f"/evaluations/{job_id}").text
    label = page[page.index('id="portfolio-window"') :]
    assert (
        f"From {window['start']} to {window['end']}:" in label[:300]
        and "10 trading days after the last" in label
    )
    spec = re.search(r'data-spec="([^"]*&#34;id&#34;:&#34;equity&#34;[^"]*)"', page)
    assert spec and f"&#34;{window['end']}&#34;]" in spec.group(1)  # the NAV chart's last day
    zh = client.get(f"/evaluations/{job_id}", headers=ZH).text
    assert f"从 {window['start']} 到 {window['end']}：" in zh and "平均超额（全部时点）" in zh


def test_an_experts_mode_verdict_links_to_its_stored_session(client: TestClient) -> None:
    job_id = start(client, {**FORM, "mode": "experts", "every": "60"})
    assert settled(client, job_id)["status"] == "done"
    points = client.get(f"/api/v1/evaluations/{job_id}/report").json()["points"]
    page = client.get(f"/evaluations/{job_id}").text
    assert points and "no research session is stored" not in page
    for point in points:
        symbol = f'<span translate="no">{point["symbol"]}</span>'
        assert f'<a href="/sessions/{point["session_id"]}">{symbol}</a>' in page
        assert client.get(f"/sessions/{point['session_id']}").status_code == 200
