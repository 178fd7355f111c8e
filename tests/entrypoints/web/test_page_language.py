"""One language per page: every page of the web UI, in English and in Chinese, says nothing in the
other language outside user data.

The walker builds one store with something on every page (analyses of each kind: a full scripted
session with its debate and verdict, a rules-only one, one with too little evidence, a cancelled
one; an evaluation, strategy runs, a briefing, a batch, syncs, a ledger entry), then requests every
GET page route of the app (read from `app.routes`: a new page route that is not walked fails the
coverage test) and the main error pages, with the language cookie set to each language. User data
is marked in the templates (`translate="no"`, `<code>`; see page_language_support.py); what is left
must be in the page's language (Chinese pages: Latin words only from a short allowlist).
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from time import monotonic

from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from stockdesk.coordinator.application import ExpertName, ResearchRequest
from stockdesk.entrypoints.api import create_app, default_policy
from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.scheduling import scheduling_of
from stockdesk.entrypoints.web.i18n import LANG_COOKIE, LANGUAGES
from stockdesk.ledger.application import LedgerService, VerdictRecord
from stockdesk.ledger.infrastructure.persistence.ledger_store import SqlLedgerStore
from stockdesk.scheduling.application import RunStatus
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.domain.dtos import RunSummary
from tests.api_support import api_client, wait_for_job
from tests.briefing.briefing_support import BriefingModel, llm_over, seed_briefing_store
from tests.browser.served_web import SECOND_SYMBOL, add_second_symbol
from tests.coordinator.support import AS_OF, SYMBOL, pipeline
from tests.data_engineering.provider_fakes import FixtureAkShare
from tests.entrypoints.web.page_language_support import offences
from tests.entrypoints.web.test_analyze_pages import GatedRouter, finished
from tests.entrypoints.web.test_batch_pages import threads_launcher
from tests.entrypoints.web.test_data_pages import providers, start_sync, wait_finished
from tests.entrypoints.web.test_strategy_pages import SEEDED_PLAN, seed
from tests.paper.support import BOOK, seed_book
from tests.strategy_lab.report_support import SUMMARY

SCHEDULE = "evening"  # not "desk": the marked name is taken out of the title, "stockdesk" included
EXPERTS = ["valuation_modeler", "technical_analyst", "financial_auditor", "macro_intelligence"]


@dataclass
class World:
    """The ids of everything stored, by what it is."""

    sessions: dict[str, str] = field(default_factory=dict)  # kind -> session id
    evaluation: str = ""
    runs: dict[str, str] = field(default_factory=dict)  # completed | interrupted -> strategy run id
    briefing: str = ""
    batch: str = ""
    syncs: dict[str, str] = field(default_factory=dict)  # completed | failed -> sync run id
    views: dict[str, str] = field(default_factory=dict)  # watchlist | holdings | unrun -> view job id


# Every GET route of the web UI that is a page, with the URLs that show it filled with stored ids.
PAGES: dict[str, Callable[[World], list[str]]] = {
    "/": lambda w: ["/"],
    "/login": lambda w: ["/login"],
    "/analyses/{session_id}": lambda w: [f"/analyses/{w.sessions['cancelled']}"],
    "/batches": lambda w: ["/batches"],
    "/batches/{job_id}": lambda w: [f"/batches/{w.batch}"],
    "/sessions": lambda w: ["/sessions", "/sessions?status=cancelled"],
    "/sessions/compare": lambda w: [f"/sessions/compare?a={w.sessions['rules']}&b={w.sessions['full']}"],
    "/sessions/{session_id}": lambda w: [f"/sessions/{s}" for s in w.sessions.values()],
    "/sessions/{session_id}/report": lambda w: [f"/sessions/{w.sessions['full']}/report"],
    "/evaluations": lambda w: ["/evaluations"],
    "/evaluations/{job_id}": lambda w: [f"/evaluations/{w.evaluation}"],
    "/track": lambda w: ["/track"],
    "/paper": lambda w: ["/paper"],
    "/paper/{name}": lambda w: [f"/paper/{BOOK}"],
    "/schedules": lambda w: ["/schedules"],
    "/schedules/{name}": lambda w: [f"/schedules/{SCHEDULE}"],
    "/watchlists": lambda w: ["/watchlists"],
    "/holdings": lambda w: ["/holdings", f"/holdings?as_of={AS_OF.isoformat()}&edit={SYMBOL}&account=main"],
    "/portfolio": lambda w: ["/portfolio"],
    "/portfolio/jobs/{job_id}": lambda w: [f"/portfolio/jobs/{j}" for j in w.views.values()],
    "/strategy": lambda w: ["/strategy"],
    "/strategy/runs/{run_id}": lambda w: [f"/strategy/runs/{r}" for r in w.runs.values()],
    "/data": lambda w: ["/data"],
    "/data/import": lambda w: ["/data/import"],
    "/data/sync": lambda w: ["/data/sync"],
    "/data/sync/{run_id}": lambda w: [f"/data/sync/{r}" for r in w.syncs.values()],
    "/data/{symbol}": lambda w: [f"/data/{SYMBOL}", f"/data/{SECOND_SYMBOL}"],
    "/briefings": lambda w: ["/briefings"],
    "/briefings/{job_id}": lambda w: [f"/briefings/{w.briefing}"],
    "/jobs": lambda w: ["/jobs"],
    "/jobs/history": lambda w: ["/jobs/history"],
    "/settings": lambda w: ["/settings"],
}
# GET routes of the web UI that answer something other than a page, and why they are not walked.
NOT_PAGES = {
    "/lang/{lang}": "sets the language cookie and redirects",
    "/symbols/suggest": "JSON for the symbol field's suggestions",
    "/sessions/{session_id}/report.{fmt}": "the report as a file to download (Markdown, HTML, JSON)",
    "/briefings/{job_id}/audio": "the briefing's WAV file",
    "/schedules/jobs/{job_id}": "a scheduled run's job: redirects to its row on the schedule's page",
    "/schedules/{name}/{day}/": "a run's batch index, written in the schedule's language, not the page's",
    "/schedules/{name}/{day}/{file}": "a run's report files, written in the schedule's language",
    **{
        route: "a job's server-sent progress events (fragments of its page, walked as the page)"
        for route in (
            "/analyses/{session_id}/events",
            "/batches/{job_id}/events",
            "/evaluations/{job_id}/events",
            "/strategy/runs/{run_id}/events",
            "/data/sync/{run_id}/events",
            "/briefings/{job_id}/events",
            "/portfolio/jobs/{job_id}/events",
        )
    },
}
# The main error pages: (method, url, form) -> the status they answer
ERROR_PAGES: list[tuple[str, str, dict[str, object], int]] = [
    ("GET", "/data/999999.SH", {}, 404),
    ("GET", f"/data/{SYMBOL}?as_of=2024-02-30", {}, 400),
    ("GET", "/sessions?since=yesterday", {}, 400),
    ("GET", "/sessions/no-such-session", {}, 404),
    ("GET", "/sessions/compare?a=one", {}, 400),
    ("GET", "/evaluations/no-such-job", {}, 404),
    ("GET", "/strategy/runs/no-such-run", {}, 404),
    ("GET", "/briefings/no-such-job", {}, 404),
    ("GET", "/batches/no-such-job", {}, 404),
    ("GET", "/data/sync/no-such-run", {}, 404),
    ("GET", "/jobs/history?status=bogus", {}, 400),
    ("GET", "/no-such-page", {}, 404),
    ("GET", "/paper/no-such-book", {}, 404),
    ("GET", "/schedules/no-such-schedule", {}, 404),
    ("GET", f"/schedules/{SCHEDULE}/2000-01-03/index.html", {}, 404),
    ("POST", f"/schedules/{SCHEDULE}/run", {"day": AS_OF.isoformat()}, 409),
    ("POST", f"/schedules/{SCHEDULE}/run", {"day": "2024-02-30"}, 400),
    ("POST", "/watchlists", {"name": "core", "symbols": "999999.SH"}, 404),
    ("POST", "/holdings", {"symbol": SYMBOL, "quantity": "-1", "cost": "1"}, 400),
    ("POST", "/portfolio", {"source": "watchlist", "watchlist": "nope", "as_of": "2024-06-28"}, 404),
    ("POST", "/portfolio", {"source": "holdings", "as_of": "2000-01-03"}, 400),
    (
        "POST",
        "/portfolio",
        {"source": "watchlist", "watchlist": "core", "as_of": "2024-06-28", "capital": "lots"},
        400,
    ),
    ("GET", "/portfolio/jobs/no-such-job", {}, 404),
    ("POST", "/analyses", {"symbol": "999999.SH", "as_of": AS_OF.isoformat(), "experts": EXPERTS}, 404),
    ("POST", "/analyses", {"symbol": SYMBOL, "as_of": "2024-13-01", "experts": EXPERTS}, 400),
    ("POST", "/analyses", {"symbol": SYMBOL, "as_of": "2030-01-04", "experts": EXPERTS}, 400),
]


def web_page_routes(app_routes: list) -> set[str]:  # type: ignore[type-arg]
    """Every GET route of the web UI (the page routers' routes, not the REST API's)."""
    return {
        str(r.path)
        for r in iter_route_contexts(app_routes)
        if "GET" in (r.methods or set())
        and getattr(r.endpoint, "__module__", "").startswith("stockdesk.entrypoints.web.")
    }


def test_every_get_route_of_the_web_ui_is_walked_or_said_not_to_be_a_page(settings: Settings) -> None:
    """A new page cannot be skipped: its route must be in PAGES (or, if it is no page, NOT_PAGES)."""
    container = AppContainer(settings)
    routes = web_page_routes(create_app(container, default_policy(settings)).routes)
    assert len(routes) > 20
    assert routes - PAGES.keys() - NOT_PAGES.keys() == set(), "walk these pages in PAGES"
    assert (PAGES.keys() | NOT_PAGES.keys()) - routes == set(), "no such route any more"
    assert not PAGES.keys() & NOT_PAGES.keys()


# ---- the world -----------------------------------------------------------------------------------
def _analyse(client: TestClient, container: AppContainer, **form: object) -> str:
    fields = {"symbol": SYMBOL, "as_of": AS_OF.isoformat(), "experts": EXPERTS, "debate": "bull-bear"}
    answer = client.post("/analyses", data={**fields, **form}, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    session_id = answer.headers["location"].removeprefix("/analyses/")
    finished(container, session_id)
    return session_id


def _cancelled(client: TestClient, container: AppContainer, router: GatedRouter) -> str:
    """An analysis cancelled by its user while the model is answering."""
    router.gate.clear()
    router.waiting.clear()
    fields = {"symbol": SYMBOL, "as_of": AS_OF.isoformat(), "experts": EXPERTS, "debate": "bull-bear"}
    answer = client.post("/analyses", data=fields, follow_redirects=False)
    session_id = answer.headers["location"].removeprefix("/analyses/")
    assert router.waiting.wait(60)
    assert client.post(f"/jobs/{session_id}/cancel", follow_redirects=False).status_code == 303
    router.gate.set()
    assert finished(container, session_id).state == "cancelled"
    return session_id


def _settled(container: AppContainer, job_id: str) -> None:
    deadline = monotonic() + 120.0
    while container.jobs.is_active(job_id):
        assert monotonic() < deadline, f"job {job_id} still {container.jobs.state_of(job_id)}"
        time.sleep(0.05)


def _briefing(settings: Settings, tmp_path: Path) -> str:
    """A briefing written by its own app over the same store (its model answers the briefing's agents)."""
    other = AppContainer(settings, llm_service=llm_over(BriefingModel()))
    seed_briefing_store(other.database, tmp_path)
    client = api_client(other)
    answer = client.post("/briefings", data={"date": "2024-03-01", "tickers": "ZMPL, XMPL", "max_rounds": ""})
    job_id = str(answer.url).rsplit("/", 1)[1]
    _settled(other, job_id)
    other.close()
    return job_id


def build_world(settings: Settings, tmp_path: Path) -> tuple[TestClient, World]:
    router = GatedRouter()
    router.gate.set()
    container, _, _ = pipeline(settings, router, with_news=True)
    add_second_symbol(container)
    client = api_client(container, batches=threads_launcher(container, tmp_path))
    world = World()
    world.sessions["full"] = _analyse(client, container)
    world.sessions["rules"] = _analyse(client, container, rules_only="1")
    world.sessions["insufficient"] = _analyse(client, container, experts=[ExpertName.TECHNICAL_ANALYST.value])
    world.sessions["cancelled"] = _cancelled(client, container, router)
    evaluation = {"symbols": SYMBOL, "start": "2023-09-01", "end": "2024-03-29", "every": "10",
                  "horizons": "5,20", "mode": "rules", "benchmark": ""}  # fmt: skip
    world.evaluation = str(client.post("/evaluations", data=evaluation).url).rsplit("/", 1)[1]
    assert wait_for_job(client, f"/api/v1/evaluations/{world.evaluation}", until=("done", "failed"))
    world.runs = {"completed": "a" * 32, "interrupted": "b" * 32}
    seed(container, world.runs["completed"], summary=RunSummary.model_validate(
        SUMMARY.model_copy(update={"plan": SEEDED_PLAN}).model_dump()))  # fmt: skip
    seed(container, world.runs["interrupted"], summary=None)
    batch = {"symbols": f"{SYMBOL}, {SECOND_SYMBOL}", "as_of": AS_OF.isoformat(),
             "experts": EXPERTS[:3], "debate": "bull-bear"}  # fmt: skip
    world.batch = str(client.post("/batches", data=batch).url).rsplit("/", 1)[1]
    _settled(container, world.batch)
    providers(container, FixtureAkShare(unreachable=("600001",)))
    world.syncs["failed"] = start_sync(client)
    wait_finished(client, world.syncs["failed"])
    made = datetime(2024, 3, 1, 20, tzinfo=UTC)  # a live verdict: made the evening of its as_of
    LedgerService(SqlLedgerStore(container.database), clock=lambda: made).append(
        VerdictRecord(entry_id="live-1", symbol=SYMBOL, as_of=date(2024, 3, 1), mode="rules", model="rules",
                      action="BUY", confidence=0.6, probability_up=0.6, verdict={"action": "BUY"},
                      inputs_hash="0" * 64)
    )  # fmt: skip
    world.briefing = _briefing(settings, tmp_path)
    seed_book(container.paper.store, SYMBOL)
    container.portfolio.watchlists.add("core", [SYMBOL, SECOND_SYMBOL])
    container.portfolio.holdings.set(SYMBOL, 1000, 18.5, account="main", opened_at=date(2024, 3, 1))
    container.portfolio.holdings.set(SECOND_SYMBOL, 200, 25)
    world.views = {
        "watchlist": _view(client, container, source="watchlist", watchlist="core"),
        "holdings": _view(client, container, source="holdings", cash="100000"),
        "unrun": container.portfolio.view_jobs.start(
            container.portfolio.view.check(AS_OF, watchlist="core", capital=5e5)
        ).job_id,  # opened, never run: the page offers Resume
    }
    _schedule_runs(container)
    return client, world


def _view(client: TestClient, container: AppContainer, **form: str) -> str:
    """A portfolio view asked for on its form, computed to the end."""
    answer = client.post("/portfolio", data={"as_of": AS_OF.isoformat(), **form}, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    job_id = answer.headers["location"].removeprefix("/portfolio/jobs/")
    _settled(container, job_id)
    assert container.portfolio.view_jobs.status(job_id).assembled
    return job_id


def _schedule_runs(container: AppContainer) -> None:
    """A schedule with a finished run (rules mode: its reports written) and a skipped day."""
    scheduling = scheduling_of(container)
    scheduling.schedules.add(SCHEDULE, watchlist="core", at="16:30", tz="Asia/Shanghai")
    for day, status in ((AS_OF, RunStatus.DONE), (date(2024, 6, 29), RunStatus.SKIPPED)):
        fired = scheduling.runs.run_now(SCHEDULE, day)
        assert fired.run is not None and fired.run.status is status, fired


FRAME = re.compile(r'<iframe[^>]*\ssrc="([^"]+)"')


def _page_offences(client: TestClient, lang: str, method: str, url: str, **kw: object) -> list[str]:
    """What a page says in the other language, and what every page it frames says (the report view
    frames the session's HTML report: fetched as the browser would, in the same language)."""
    client.cookies.set(LANG_COOKIE, lang)
    answer = client.request(method, url, **kw)  # type: ignore[arg-type]
    assert answer.headers["content-type"].startswith("text/html"), f"{url}: {answer.headers['content-type']}"
    found = [f"{lang} {method} {url}: {said}" for said in offences(answer.text, lang)]
    for src in FRAME.findall(answer.text):
        framed = client.get(html.unescape(src))
        assert framed.status_code == 200 and f'<html lang="{lang}">' in framed.text, src
        found += [f"{lang} GET {src} (framed in {url}): {said}" for said in offences(framed.text, lang)]
    return found, answer.status_code


def test_every_page_speaks_one_language(settings: Settings, tmp_path: Path) -> None:
    client, world = build_world(settings, tmp_path)
    found: list[str] = []
    for lang in LANGUAGES:
        for urls in PAGES.values():
            for url in urls(world):
                said, status = _page_offences(client, lang, "GET", url)
                assert status == 200, f"{url} answered {status}"
                found += said
        for method, url, form, expected in ERROR_PAGES:
            said, status = _page_offences(client, lang, method, url, data=form or None)
            assert status == expected, f"{method} {url} answered {status}, not {expected}"
            found += said
    print("\n".join(found))
    assert not found, f"{len(found)} strings in the other language:\n" + "\n".join(found)


def _without_words(value: object) -> object:
    """A stored payload as it was before the words of both languages were kept (no `i18n` anywhere)."""
    if isinstance(value, dict):
        return {k: _without_words(v) for k, v in value.items() if k != "i18n"}
    if isinstance(value, list):
        return [_without_words(v) for v in value]
    return value


def test_the_session_page_picks_the_stored_words_of_its_language_and_an_old_session_still_renders(
    settings: Settings,
) -> None:
    container, _, _ = pipeline(settings)
    session = container.coordinator.service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF, rules_only=True))
    client = api_client(container)
    plan = session.verdict["i18n"]
    for lang in LANGUAGES:
        client.cookies.set(LANG_COOKIE, lang)
        page = client.get(f"/sessions/{session.id}").text
        other = "zh" if lang == "en" else "en"
        assert plan[lang]["stop_loss"] in page and plan[other]["stop_loss"] not in page
        assert plan[lang]["time_horizon"] in page
    old = session.model_copy(
        update={
            "id": "old-session",
            "verdict": _without_words(session.verdict),
            "expert_results": _without_words(session.expert_results),
            "aggregation": _without_words(session.aggregation),
            "charts": _without_words(session.charts),
        }
    )
    container.coordinator.repository.save(old)
    for lang in LANGUAGES:  # what was stored is shown: the Chinese plan lines of the time, English charts
        client.cookies.set(LANG_COOKIE, lang)
        page = client.get("/sessions/old-session")
        assert page.status_code == 200 and session.verdict["stop_loss"] in page.text
