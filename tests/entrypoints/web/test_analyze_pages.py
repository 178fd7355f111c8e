"""The Analyze area over HTTP: the start form, its refusals, the progress page, its SSE stream, Cancel.

A real app over a populated SQLite store and the scripted LLM (tests/coordinator/support.py); the
analysis runs in the server's job executor exactly as it does when a browser starts it.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from fastapi.testclient import TestClient

from stockdesk.coordinator.application import AnalysisProgress, AnalysisRuns
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, SYMBOL, Router, pipeline

EXPERTS = ["valuation_modeler", "technical_analyst", "financial_auditor"]


def form(**fields: Any) -> dict[str, Any]:
    return {"symbol": SYMBOL, "as_of": AS_OF.isoformat(), "experts": EXPERTS, "debate": "bull-bear", **fields}


def finished(container: AppContainer, session_id: str) -> AnalysisProgress:
    """The analysis once it ended (it runs on the executor's thread); fails the test after 60 s."""
    deadline = time.monotonic() + 60.0
    while True:
        progress = container.analyses.progress(session_id)
        if progress.finished:
            return progress
        assert time.monotonic() < deadline, f"analysis {session_id} still {progress.state}"
        time.sleep(0.05)


def start(client: TestClient, **fields: Any) -> str:
    response = client.post("/analyses", data=form(**fields), follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert location.startswith("/analyses/")
    return location.removeprefix("/analyses/")


class GatedRouter(Router):
    """The scripted LLM, holding every answer until the test opens the gate (a run that waits)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.waiting = threading.Event()

    def __call__(self, request: CompletionRequest) -> str:
        self.waiting.set()
        assert self.gate.wait(60), "the test never opened the gate"
        return super().__call__(request)


def test_home_offers_the_form_with_every_expert_checked_and_no_sessions_yet(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    page = api_client(container).get("/")
    assert page.status_code == 200
    html = page.text
    assert 'action="/analyses"' in html and 'data-suggest="/symbols/suggest"' in html
    for name in ("valuation_modeler", "technical_analyst", "financial_auditor", "macro_intelligence"):
        assert f'name="experts" value="{name}" checked' in html
    for mode in ("bull-bear", "panel", "skip"):
        assert f'name="debate" value="{mode}"' in html
    assert 'name="debate" value="bull-bear" checked' in html
    assert 'name="rules_only"' in html and "Rules only (no LLM)" in html
    assert "No analysis is running." in html and "No session yet" in html


def test_starting_an_analysis_goes_to_its_progress_and_ends_as_a_stored_session(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    session_id = start(client)
    assert finished(container, session_id).state == "completed"

    progress = client.get(f"/analyses/{session_id}")
    assert progress.status_code == 200
    html = progress.text
    assert 'data-state="completed"' in html and "sse-connect" not in html  # stored state, nothing to follow
    for node in ("valuation_modeler", "technical_analyst", "financial_auditor", "debate_node", "judge_node"):
        assert f'data-node="{node}" data-state="done"' in html
    assert "Judge" in html and f'href="/sessions/{session_id}"' in html
    assert "Cancel" not in html

    home = client.get("/").text
    assert f'href="/sessions/{session_id}"' in home  # among the latest sessions
    session = container.coordinator.service.get(session_id)
    assert [e.value for e in session.experts] == EXPERTS and session.as_of == AS_OF
    assert session.debate_mode.value == "bull-bear" and not session.skip_debate


def test_the_form_choices_reach_the_request(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    client = api_client(container)
    session_id = start(client, experts=["technical_analyst"], debate="skip", rules_only="1", as_of="")
    finished(container, session_id)
    session = container.coordinator.service.get(session_id)
    assert [e.value for e in session.experts] == ["technical_analyst"]
    assert session.skip_debate and session.as_of == AS_OF  # no date: the newest stored bar's
    assert session.aggregation["as_of_clamped"] is True
    assert session.llm_settings == {"rules_only": True} and router.calls == []  # no LLM call at all


def test_an_unknown_symbol_is_refused_in_the_form_with_404_and_nothing_starts(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    client = api_client(container)
    refused = client.post("/analyses", data=form(symbol="999999.SH"), follow_redirects=False)
    assert refused.status_code == 404
    assert 'role="alert"' in refused.text and "999999.SH" in refused.text
    assert 'value="999999.SH"' in refused.text  # the form comes back filled in
    assert 'name="experts" value="macro_intelligence" checked' not in refused.text  # as it was sent
    assert container.analyses.active() == []
    assert container.coordinator.service.list().total == 0 and router.calls == []


def test_malformed_forms_are_400_with_the_reason_and_nothing_starts(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    cases = {
        "INVALID_DATE": form(as_of="2024-13-45"),
        "NO_EXPERTS": {k: v for k, v in form().items() if k != "experts"},
        "UNKNOWN_EXPERT": form(experts=["astrologer"]),
        "BAD_DEBATE_MODE": form(debate="shouting"),
        "SYMBOL_REQUIRED": form(symbol="  "),
    }
    for code, data in cases.items():
        refused = client.post("/analyses", data=data, follow_redirects=False)
        assert refused.status_code == 400, (code, refused.status_code)
        assert f'data-code="{code}"' in refused.text
    assert container.coordinator.service.list().total == 0 and container.analyses.active() == []


def test_unknown_analysis_ids_are_404_pages(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    for response in (
        client.get("/analyses/nope"),
        client.get("/analyses/nope/events"),
        client.post("/analyses/nope/cancel"),
    ):
        assert response.status_code == 404
        assert 'data-code="SESSION_NOT_FOUND"' in response.text


def test_the_event_stream_of_a_finished_analysis_is_its_table_then_done(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    session_id = start(client)
    finished(container, session_id)
    stream = client.get(f"/analyses/{session_id}/events")
    assert stream.status_code == 200 and stream.headers["content-type"].startswith("text/event-stream")
    events = [block for block in stream.text.split("\n\n") if block.strip()]
    assert [e.splitlines()[0] for e in events] == ["event: progress", "event: done"]
    assert events[0].startswith('event: progress\ndata: <section class="card job-panel"')
    assert panel_state(events[0]) == "completed"
    assert 'data-node="judge_node" data-state="done"' in events[0]
    assert "<html" not in events[0]  # a fragment, swapped into the page


def test_a_live_analysis_streams_each_change_and_can_be_cancelled(settings: Settings) -> None:
    """The progress page follows a running analysis over SSE in the job panel; its Cancel posts to the
    general jobs route, which stops it before its next step and comes back to the page (cancelling,
    no Cancel any more); the stored session says cancelled, with the reason, on a reload."""
    router = GatedRouter()
    container, _, _ = pipeline(settings, router)
    client = api_client(container)
    session_id = start(client, experts=["valuation_modeler"])
    assert router.waiting.wait(60)  # the expert is waiting for its model answer: the run is live

    page = client.get(f"/analyses/{session_id}").text
    assert f'sse-connect="/analyses/{session_id}/events"' in page
    assert f'data-done-url="/sessions/{session_id}"' in page and 'data-state="running"' in page
    cancel = f"/jobs/{session_id}/cancel?back=/analyses/{session_id}"
    assert f'<form method="post" action="{cancel}">' in page and "hx-post" not in page
    assert 'data-node="valuation_modeler" data-state="running"' in page
    assert session_id in client.get("/").text  # listed as running now

    reads = _count_stream_reads(container.analyses)
    streamed: dict[str, str] = {}
    reader = threading.Thread(
        target=lambda: streamed.update(text=client.get(f"/analyses/{session_id}/events").text)
    )
    reader.start()
    assert reads.wait(60)  # the stream has read (and sent) the running state

    cancelled = client.post(cancel, follow_redirects=False)
    assert cancelled.status_code == 303 and cancelled.headers["location"] == f"/analyses/{session_id}"
    back = client.get(cancelled.headers["location"]).text
    assert panel_state(back) == "cancelling" and "Stopping before the next step" in back
    assert f'action="{cancel}"' not in back and f'sse-connect="/analyses/{session_id}/events"' in back
    router.gate.set()
    reader.join(60)
    assert finished(container, session_id).state == "cancelled"

    states = [panel_state(line) for line in streamed["text"].splitlines() if 'class="card job-panel"' in line]
    assert states[0] == "running" and states[-1] == "cancelled"
    assert streamed["text"].rstrip().endswith("event: done\ndata: finished")

    reloaded = client.get(f"/analyses/{session_id}").text
    assert 'data-state="cancelled"' in reloaded and "was cancelled" in reloaded
    assert "Reason: cancelled by the user" in reloaded and "sse-connect" not in reloaded
    assert container.coordinator.service.get(session_id).status.value == "cancelled"


def panel_state(html: str) -> str | None:
    """The state the page's (or the fragment's) job panel shows."""
    found = re.search(r'<section class="card job-panel" id="progress-panel" [^>]*data-state="([\w-]+)"', html)
    return found.group(1) if found else None


def _count_stream_reads(runs: AnalysisRuns) -> threading.Event:
    """An event set once the SSE route has read progress twice (its 404 check, then the stream's first
    read): wraps this AnalysisRuns' `progress` in place."""
    read_twice, calls, original = threading.Event(), [], runs.progress

    def progress(session_id: str) -> AnalysisProgress:
        found = original(session_id)
        calls.append(session_id)
        if len(calls) >= 2:
            read_twice.set()
        return found

    runs.progress = progress  # type: ignore[method-assign]
    return read_twice


def test_the_old_cancel_route_redirects_to_the_jobs_route_and_still_stops_it(settings: Settings) -> None:
    """A page loaded before the move posts to `/analyses/{id}/cancel`: 307 (still a POST) to the jobs
    route, which stops the analysis and comes back to its page."""
    router = GatedRouter()
    container, _, _ = pipeline(settings, router)
    client = api_client(container)
    session_id = start(client, experts=["technical_analyst"])
    assert router.waiting.wait(60)
    moved = client.post(f"/analyses/{session_id}/cancel", follow_redirects=False)
    assert moved.status_code == 307
    assert moved.headers["location"] == f"/jobs/{session_id}/cancel?back=/analyses/{session_id}"
    response = client.post(moved.headers["location"], follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == f"/analyses/{session_id}"
    router.gate.set()
    assert finished(container, session_id).state == "cancelled"
    late = client.post(moved.headers["location"], follow_redirects=False)  # ended meanwhile: left as it is
    assert late.status_code == 303 and late.headers["location"] == f"/analyses/{session_id}"


def test_symbol_suggestions_match_code_or_name_and_are_capped(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    expected = [{"symbol": SYMBOL, "label": f"{SYMBOL} · 示例银行 · 银行"}]
    assert client.get("/symbols/suggest", params={"q": "600001"}).json() == expected
    assert client.get("/symbols/suggest", params={"q": "600001.sh"}).json() == expected  # any case
    assert client.get("/symbols/suggest", params={"q": "示例"}).json() == expected  # by name
    assert client.get("/symbols/suggest", params={"q": "nothing-like-it"}).json() == []
    assert client.get("/symbols/suggest", params={"q": "x" * 41}).status_code == 400


def test_more_than_twenty_matches_are_cut_to_twenty_symbol_matches_first() -> None:
    from stockdesk.data_engineering.application import SecurityDTO, suggest

    named = SecurityDTO(symbol="000001.SZ", name="平安银行 600", market="CN")
    many = [named, *(SecurityDTO(symbol=f"600{i:03d}.SH", name=f"公司{i}", market="CN") for i in range(30))]
    found = suggest(many, "600")
    assert len(found) == 20 and all(s.symbol.startswith("600") for s in found)
    assert suggest([named], "600")[0].symbol == "000001.SZ"  # a name match when no code matches


def test_a_chinese_browser_gets_the_form_in_chinese(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    html = client.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9"}).text
    assert '<html lang="zh-CN">' in html
    for text in ("开始分析", "估值建模师", "多空辩论", "仅规则（不调用大模型）", "正在运行"):
        assert text in html
    assert "Start an analysis" not in html


def test_a_name_typed_and_sent_without_picking_a_suggestion_is_analyzed(settings: Settings) -> None:
    """Typing “示例银行” (or a part of it) and sending the form analyzes the one security so named."""
    container, _, _ = pipeline(settings)
    client = api_client(container)
    for typed in ("示例银行", "示例", f" {SYMBOL.lower()} "):
        session_id = start(client, symbol=typed)
        assert finished(container, session_id).symbol == SYMBOL


def test_a_name_several_securities_share_is_answered_with_the_list_to_pick_from() -> None:
    from stockdesk.data_engineering.application import SecurityDTO, resolve_typed

    stocks = [
        SecurityDTO(symbol="600519.SH", name="贵州茅台", market="CN"),
        SecurityDTO(symbol="600036.SH", name="招商银行", market="CN"),
        SecurityDTO(symbol="000001.SZ", name="平安银行", market="CN"),
    ]
    assert resolve_typed(stocks, "茅台") == "600519.SH"
    assert resolve_typed(stocks, "600519.sh") == "600519.sh"  # a code the store knows, kept as typed
    assert [s.symbol for s in resolve_typed(stocks, "银行")] == ["600036.SH", "000001.SZ"]  # type: ignore[union-attr]
    assert resolve_typed(stocks, "999999.SH") == "999999.SH"  # unknown: the analysis says so


def test_the_form_offers_the_matches_of_an_ambiguous_name_and_a_pick_starts_it(settings: Settings) -> None:
    from tests.research.support import populate_store

    container, _, _ = pipeline(settings)
    populate_store(container.database, "600002.SH")  # a second security named 示例银行
    client = api_client(container)
    refused = client.post("/analyses", data=form(symbol="示例银行"), follow_redirects=False)
    assert refused.status_code == 400 and 'data-code="SYMBOL_AMBIGUOUS"' in refused.text
    assert '“<span translate="no">示例银行</span>” matches 2 securities: pick one' in refused.text
    for symbol in (SYMBOL, "600002.SH"):
        assert f'name="pick" value="{symbol}"' in refused.text
    picked = client.post("/analyses", data=form(symbol="示例银行", pick=SYMBOL), follow_redirects=False)
    assert picked.status_code == 303
    assert finished(container, picked.headers["location"].rsplit("/", 1)[1]).symbol == SYMBOL
