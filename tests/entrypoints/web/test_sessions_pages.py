"""Stored sessions over HTTP: the list and its filters, one session's page and files, retry, compare.

Sessions come from the real pipeline (scripted LLM) on a real SQLite store; copies saved through the
session repository fill a list long enough to page.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, timedelta
from html import unescape

from stockdesk.coordinator.application import ExpertName, ResearchRequest, ResearchSession, SessionStatus
from stockdesk.coordinator.presentation.reports.compare import compare_sessions
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.api_support import api_client
from tests.browser.served_web import SECOND_SYMBOL, add_second_symbol
from tests.coordinator.support import AS_OF, SYMBOL, died, pipeline
from tests.entrypoints.web.page_language_support import unmarked
from tests.entrypoints.web.test_analyze_pages import GatedRouter, finished, start

JOBS = "/api/v1/coordinator/research/jobs"


def run(container: AppContainer, symbol: str = SYMBOL, **request: object) -> ResearchSession:
    """A whole analysis through the coordinator service (the pipeline the pages show)."""
    return container.coordinator.service.run(ResearchRequest(symbol=symbol, as_of=AS_OF, **request))


def copies(container: AppContainer, session: ResearchSession, count: int) -> list[str]:
    """`count` copies of a stored session, one minute apart going back, saved as they are."""
    ids = []
    for index in range(count):
        started = session.started_at - timedelta(minutes=index + 1)
        copy = session.model_copy(update={"id": f"copy{index:04d}", "started_at": started, "nodes": []})
        container.coordinator.repository.save(copy)
        ids.append(copy.id)
    return ids


def cells(html: str, table_id: str) -> str:
    found = re.search(rf'<table id="{table_id}"[^>]*>(.*?)</table>', html, re.S)
    assert found, f"no table #{table_id}"
    return found.group(1)


def test_the_session_page_shows_the_verdict_its_trade_plan_the_experts_and_interactive_charts(
    settings: Settings,
) -> None:
    container, _, _ = pipeline(settings)
    session = run(container)
    page = api_client(container).get(f"/sessions/{session.id}")
    assert page.status_code == 200
    html = page.text
    assert "600001.SH research session" in html and 'class="badge state-completed"' in html
    assert re.search(r'<span class="badge tone-hold" data-field="action"[^>]*>HOLD</span>', html)
    plan = cells(html, "trade-plan")
    for number in (
        "20.00 CNY (close of 2024-06-28)",
        "18.00 CNY (-10.00%)",
        "22.00 CNY (+10.00%)",
        "ATR(14)",
    ):
        assert number in plan  # the plan's numbers, computed in code, with their unit and sign
    experts = cells(html, "experts-table")
    for title in ("Valuation modeler", "Technical analyst", "Financial auditor", "Catalyst detective"):
        assert title in experts
    # a number an expert's claims rest on, labelled and with its unit
    assert '<div data-figure="pe_ttm"><dt>P/E (TTM)</dt><dd>30.00×</dd></div>' in html
    assert "Bull case" in html and "Bear case" in html and "Judge" in html
    specs = [json.loads(unescape(s)) for s in re.findall(r'data-spec="([^"]+)"', html)]
    assert [s["id"] for s in specs] == [c["id"] for c in session.charts] and len(specs) >= 3
    price = specs[0]
    assert price["panels"][0]["series"][0]["values"][-1] == 20.0  # the stored series, not recomputed
    for fmt in ("md", "html", "json"):
        assert f'href="/sessions/{session.id}/report.{fmt}?lang=en"' in html
    assert "Retry the failed parts" not in html  # nothing failed


def test_report_files_are_the_stored_session_as_markdown_html_and_json(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    session = run(container, experts=[ExpertName.TECHNICAL_ANALYST, ExpertName.FINANCIAL_AUDITOR])
    client = api_client(container)
    name = f"600001.SH-2024-06-28-{session.id[:8]}"
    md = client.get(f"/sessions/{session.id}/report.md")
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
    assert md.headers["content-disposition"] == f'attachment; filename="{name}.md"'
    assert "600001.SH" in md.text and "HOLD" in md.text
    page = client.get(f"/sessions/{session.id}/report.html")
    assert page.headers["content-type"].startswith("text/html") and "<svg" in page.text  # charts inlined
    whole = client.get(f"/sessions/{session.id}/report.json").json()
    assert whole["id"] == session.id and whole["verdict"]["trade_plan"]["entry_price"] == 20.0
    assert client.get(f"/sessions/{session.id}/report.txt").status_code == 404


def test_the_report_is_read_in_the_browser_with_its_download_buttons(settings: Settings) -> None:
    """The session page links to a report view: the HTML report framed in the UI (shown inline,
    under a policy that lets nothing in it run or load) beside the buttons that download it."""
    container, _, _ = pipeline(settings)
    session = run(container, experts=[ExpertName.TECHNICAL_ANALYST])
    client = api_client(container)
    assert f'href="/sessions/{session.id}/report"' in client.get(f"/sessions/{session.id}").text
    view = client.get(f"/sessions/{session.id}/report")
    assert view.status_code == 200
    assert (
        f'src="/sessions/{session.id}/report.html?inline=1&amp;lang=en"' in view.text
        and "sandbox" in view.text
    )
    for fmt in ("md", "html", "json"):
        assert f'href="/sessions/{session.id}/report.{fmt}?lang=en" download' in view.text
    framed = client.get(f"/sessions/{session.id}/report.html", params={"inline": 1})
    assert framed.headers["content-disposition"].startswith("inline;") and "<svg" in framed.text
    policy = framed.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'self'" in policy
    downloaded = client.get(f"/sessions/{session.id}/report.html")
    assert downloaded.headers["content-disposition"].startswith("attachment;")
    md = client.get(f"/sessions/{session.id}/report.md", params={"inline": 1})
    assert md.headers["content-disposition"].startswith("attachment;")  # only the HTML report is shown
    chinese = client.get(f"/sessions/{session.id}/report", headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    assert "返回会话" in chinese.text
    # the framed report and the downloads are in the page's language; `lang` asks for one outright
    assert f'src="/sessions/{session.id}/report.html?inline=1&amp;lang=zh"' in chinese.text
    assert f'href="/sessions/{session.id}/report.md?lang=zh" download' in chinese.text
    framed_zh = client.get(f"/sessions/{session.id}/report.html", params={"inline": 1, "lang": "zh"})
    assert '<html lang="zh">' in framed_zh.text and "研究报告" in framed_zh.text
    md_zh = client.get(f"/sessions/{session.id}/report.md", params={"lang": "zh"}).text
    assert "## 裁决" in md_zh and "## Verdict" in client.get(f"/sessions/{session.id}/report.md").text
    bad = client.get(f"/sessions/{session.id}/report.md", params={"lang": "fr"})
    assert bad.status_code == 400 and 'data-code="BAD_LANGUAGE"' in bad.text
    assert client.get("/sessions/nope/report").status_code == 404


def test_unknown_sessions_are_404_pages(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    session = run(container, experts=[ExpertName.TECHNICAL_ANALYST])
    for response in (
        client.get("/sessions/nope"),
        client.get("/sessions/nope/report.md"),
        client.post("/sessions/nope/retry"),
        client.get("/sessions/compare", params={"a": session.id, "b": "nope"}),
    ):
        assert response.status_code == 404
        assert (
            'data-code="SESSION_NOT_FOUND"' in response.text
            and "There is no research session nope." in unmarked(response.text)
        )


def test_a_partial_session_says_what_failed_and_retries_its_failed_parts_as_a_job(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    router.broken = {"ValuationModelOutput"}
    parent = run(container, experts=[ExpertName.VALUATION_MODELER, ExpertName.TECHNICAL_ANALYST])
    assert parent.status.value == "partial"
    client = api_client(container)
    html = client.get(f"/sessions/{parent.id}").text
    assert 'data-state="partial"' in html and "Partial result" in html
    assert "Valuation modeler</b>:" in html  # the failed expert, with its error
    assert f'action="/sessions/{parent.id}/retry"' in html

    router.broken = set()
    retried = client.post(f"/sessions/{parent.id}/retry", follow_redirects=False)
    assert retried.status_code == 303 and retried.headers["location"].startswith("/analyses/")
    child_id = retried.headers["location"].removeprefix("/analyses/")
    assert finished(container, child_id).state == "completed"
    child = container.coordinator.service.get(child_id)
    assert child.parent_session_id == parent.id and child.reused_experts == ["technical_analyst"]
    page = client.get(f"/sessions/{child_id}").text
    assert (
        f'Retry of session <a href="/sessions/{parent.id}">' in page and "Retry the failed parts" not in page
    )

    again = client.post(f"/sessions/{child_id}/retry", follow_redirects=False)
    assert again.status_code == 400 and 'data-code="NOTHING_TO_RETRY"' in again.text
    assert container.coordinator.service.list().total == 2  # the refused retry started nothing


def test_the_rest_twin_retries_as_a_job_too(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    router.broken = {"TechnicalAnalysisOutput"}
    parent = run(container, experts=[ExpertName.TECHNICAL_ANALYST, ExpertName.FINANCIAL_AUDITOR])
    assert "technical_analyst" in parent.expert_errors
    router.broken = set()
    client = api_client(container)
    accepted = client.post(f"{JOBS}/{parent.id}/retry")
    assert accepted.status_code == 202, accepted.text
    child_id = accepted.json()["session_id"]
    assert child_id != parent.id and finished(container, child_id).state == "completed"
    assert container.coordinator.service.get(child_id).parent_session_id == parent.id
    refused = client.post(f"{JOBS}/{child_id}/retry")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "NOTHING_TO_RETRY"
    assert client.post(f"{JOBS}/nope/retry").status_code == 404


def test_a_session_cut_off_by_a_stopped_server_reads_as_interrupted(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    stored = run(container, experts=[ExpertName.TECHNICAL_ANALYST])
    cut = stored.model_copy(
        update={
            "id": "cutoff",
            "status": SessionStatus.RUNNING,
            "verdict": {},
            "finished_at": None,
            "nodes": [],
        }
    )
    container.coordinator.repository.save(cut)
    died(container.database, "cutoff")
    client = api_client(container)
    page = client.get("/sessions/cutoff").text
    assert (
        'data-state="interrupted"' in page and "Interrupted: the process running this session stopped" in page
    )
    assert 'class="badge state-interrupted"' in client.get("/sessions").text
    progress = client.get("/analyses/cutoff").text
    assert "was interrupted" in progress and "killed or crashed" in progress


def test_a_running_session_page_sends_the_reader_to_its_progress(settings: Settings) -> None:
    router = GatedRouter()
    container, _, _ = pipeline(settings, router)
    client = api_client(container)
    session_id = start(client, experts=["technical_analyst"])
    assert router.waiting.wait(60)
    response = client.get(f"/sessions/{session_id}", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == f"/analyses/{session_id}"
    router.gate.set()
    finished(container, session_id)
    assert client.get(f"/sessions/{session_id}", follow_redirects=False).status_code == 200


def test_the_list_filters_by_symbol_verdict_status_and_day_and_pages_by_twenty(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    latest = run(container, experts=[ExpertName.TECHNICAL_ANALYST])
    older = copies(container, latest, 21)
    client = api_client(container)

    first = client.get("/sessions").text
    rows = re.findall(r'<tr data-session="([^"]+)">', first)
    assert rows == [latest.id, *older[:19]] and "1–20 of 22" in first
    assert 'href="/sessions?offset=20" rel="next"' in first and 'rel="prev"' not in first
    second = client.get("/sessions", params={"offset": 20}).text
    assert re.findall(r'<tr data-session="([^"]+)">', second) == older[19:]
    assert 'href="/sessions" rel="prev"' in second and 'rel="next"' not in second

    def listed(**params: str) -> list[str]:
        response = client.get("/sessions", params=params)
        assert response.status_code == 200
        return re.findall(r'<tr data-session="([^"]+)">', response.text)

    assert len(listed(symbol="600001.sh")) == 20  # any case
    assert listed(symbol="000002.SZ") == []
    assert len(listed(action="hold")) == 20 and listed(action="BUY") == []
    assert len(listed(status="completed")) == 20 and listed(status="partial") == []
    today = latest.started_at.astimezone(UTC).date()
    assert listed(since=(today + timedelta(days=1)).isoformat()) == []
    filtered = client.get("/sessions", params={"action": "HOLD", "status": "completed"}).text
    assert 'href="/sessions?action=HOLD&amp;status=completed&amp;offset=20" rel="next"' in filtered
    assert '<option value="HOLD" selected>' in filtered  # the form shows the filter in force
    assert "No session matches these filters." in client.get("/sessions", params={"action": "SELL"}).text


def test_bad_filters_are_400_with_the_reason(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    client = api_client(container)
    for params, code in (
        ({"since": "2024-02-30"}, "INVALID_DATE"),
        ({"action": "MAYBE"}, "BAD_ACTION"),
        ({"status": "sleeping"}, "BAD_STATUS"),
        ({"offset": "-1"}, "BAD_REQUEST"),
    ):
        response = client.get("/sessions", params=params)
        assert response.status_code == 400, params
        assert f'data-code="{code}"' in response.text


def test_compare_two_sessions_of_one_symbol_highlights_what_changed(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    both = [ExpertName.VALUATION_MODELER, ExpertName.TECHNICAL_ANALYST]
    router.broken = {"ValuationModelOutput"}
    earlier = run(container, experts=both)
    router.broken = set()
    later = run(container, experts=both)
    client = api_client(container)

    listed = client.get("/sessions").text
    assert 'action="/sessions/compare"' in listed and f'name="pick" value="{earlier.id}"' in listed
    page = client.get("/sessions/compare", params=[("pick", later.id), ("pick", earlier.id)])
    assert page.status_code == 200
    html = page.text
    assert "600001.SH: two sessions compared" in html
    heads = re.findall(r'<th scope="col"><a href="/sessions/([^"]+)">', html)
    assert heads[:2] == [earlier.id, later.id]  # earlier first, whatever the order picked

    valuation = re.search(r'data-expert="valuation_modeler"(.*?)</table>', html, re.S)
    assert valuation
    status = re.search(r'<tr data-row="status" data-changed="1">(.*?)</tr>', valuation.group(1), re.S)
    assert status and status.group(1).count('class="changed"') == 2
    assert ">failed</td>" in status.group(1) and ">ok" in status.group(1)
    technical = re.search(r'data-expert="technical_analyst"(.*?)</table>', html, re.S)
    assert technical and 'class="changed"' not in technical.group(1)  # same answer both times
    assert '<tr data-row="signal">' in technical.group(1)
    # a key figure's row: its label and its value with the unit, as on the session page
    assert re.search(
        r'<tr data-row="close">\s*<th scope="row">Close</th>\s*<td>20.00 CNY</td>', technical.group(1)
    )
    verdict = cells(html, "compare-verdict")
    assert '<tr data-row="action">' in verdict  # HOLD both times: not highlighted
    assert "20.00 CNY" in verdict and "18.00 CNY" in verdict and "22.00 CNY" in verdict

    same = client.get("/sessions/compare", params={"a": later.id, "b": earlier.id}).text
    assert re.findall(r'<th scope="col"><a href="/sessions/([^"]+)">', same)[:2] == [earlier.id, later.id]


def test_the_compare_model_reads_both_sessions_as_the_report_does(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    router.broken = {"TechnicalAnalysisOutput"}
    earlier = run(container, experts=[ExpertName.TECHNICAL_ANALYST, ExpertName.FINANCIAL_AUDITOR])
    router.broken = set()
    later = run(container, experts=[ExpertName.TECHNICAL_ANALYST])
    comparison = compare_sessions(later, earlier)
    assert (comparison.before.id, comparison.after.id) == (earlier.id, later.id)
    experts = {e.name: e for e in comparison.experts}
    auditor = {row.key: row for row in experts["financial_auditor"].rows}
    assert (auditor["status"].before, auditor["status"].after) == ("ok", "missing")
    figure = next(k for k, r in auditor.items() if r.kind == "number")  # a key figure of the snapshot
    assert auditor[figure].before != "—" and auditor[figure].after == "—"
    technical = {row.key: row for row in experts["technical_analyst"].rows}
    assert technical["status"].changed and technical["signal"].after == "NEUTRAL"
    assert comparison.changes == sum(r.changed for e in comparison.experts for r in e.rows) + sum(
        r.changed for r in comparison.verdict
    )


def test_comparing_sessions_of_two_symbols_is_a_400_with_a_clear_message(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    add_second_symbol(container)
    one = run(container, experts=[ExpertName.TECHNICAL_ANALYST])
    other = run(container, SECOND_SYMBOL, experts=[ExpertName.TECHNICAL_ANALYST])
    client = api_client(container)
    response = client.get("/sessions/compare", params={"a": one.id, "b": other.id})
    assert response.status_code == 400 and 'data-code="DIFFERENT_SYMBOLS"' in response.text
    assert "Sessions of different symbols cannot be compared (600001.SH and 000002.SZ)" in unmarked(
        response.text
    )
    for params in ({"pick": one.id}, {}, [("pick", one.id), ("pick", other.id), ("pick", "x")]):
        refused = client.get("/sessions/compare", params=params)
        assert refused.status_code == 400 and 'data-code="PICK_TWO"' in refused.text


def test_expert_figures_are_labelled_with_units_and_the_plans_signs_agree_with_the_verdict(
    settings: Settings,
) -> None:
    """Issue 32: no `graham_safety_margin -10.9` (a raw key, no unit) on an expert's card, and no
    "Watch below 12.86 (4.95%)" under a verdict that says -4.95%: in both languages."""
    container, _, _ = pipeline(settings)
    session = run(container)
    client = api_client(container)
    stop_words = {  # the verdict's stop words in each language (judge's plan_text, the catalogue's verdict.*)
        "en": r"below ([\d.]+) \(([+-])([\d.]+)%\) it turns weaker",
        "zh": r"跌破 ([\d.]+)（([+-])([\d.]+)%）",
    }
    for lang, below in (("en", "Watch below (turns bearish)"), ("zh", "下方观察位（跌破转弱）")):
        html = client.get(f"/sessions/{session.id}", headers={"Accept-Language": lang}).text
        shown = re.findall(r'<div data-figure="([a-z0-9_]+)"><dt>([^<]+)</dt><dd>([^<]+)</dd></div>', html)
        assert len(shown) >= 20, "every expert's figures are on the page"
        for key, label, _value in shown:
            assert label != key and not re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+", label), (key, label)
            assert f"<code>{key}</code>" not in html
        figures = {key: value for key, _, value in shown}
        assert figures["graham_safety_margin"] == "-12.8%" and figures["roe"] == "12.50%"
        assert figures["current_price"] == ("20.00 CNY" if lang == "en" else "20.00元")
        said = re.search(stop_words[lang], html)  # in the page's language only
        assert not re.search(stop_words["zh" if lang == "en" else "en"], html)
        assert said, "the verdict states the watch-below level with its signed distance"
        row = re.search(rf"<th scope=\"row\">{re.escape(below)}</th><td[^>]*>([^<]+)</td>", html)
        assert row, below
        assert f"({said.group(2)}{float(said.group(3)):.2f}%)" in row.group(1)


def test_a_chinese_browser_gets_the_session_pages_in_chinese(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    session = run(container, experts=[ExpertName.TECHNICAL_ANALYST, ExpertName.VALUATION_MODELER])
    client = api_client(container)
    zh = {"Accept-Language": "zh-CN,zh;q=0.9"}
    page = client.get(f"/sessions/{session.id}", headers=zh).text
    for text in ("600001.SH 研究会话", "裁决", "交易计划", "技术分析师", "图表", "步骤与耗时"):
        assert text in page
    assert "Trade plan" not in page and "Experts" not in page
    listed = client.get("/sessions", headers=zh).text
    assert "<h1>研究记录</h1>" in listed and "对比勾选的两个会话" in listed
    compared = client.get("/sessions/compare", params={"a": session.id, "b": session.id}, headers=zh).text
    assert "两个会话的对比" in compared and "入场价" in compared


def test_the_verdict_says_its_calibrated_probability_or_uncalibrated_in_the_pages_language(
    settings: Settings,
) -> None:
    container, _, _ = pipeline(settings)
    session = run(container)  # an LLM verdict: no calibration of its own
    calibrated = session.model_copy(
        update={
            "id": "calibrated0001",
            "verdict": {
                **session.verdict,
                "calibrated": True,
                "probability_up": {"5": 0.51, "20": 0.573, "60": 0.6},
                "calibration": {
                    "20": {"n": 1234, "ece": 0.0123, "fitted_to": "2024-05-31", "model": "fitted"}
                },
                "signal_model": {"horizon": 20, "action": "BUY", "calibrated": True},
            },
        }
    )
    container.coordinator.repository.save(calibrated)
    client = api_client(container)
    llm = client.get(f"/sessions/{session.id}").text
    assert 'data-probability="uncalibrated"' in llm and "Uncalibrated: too few past outcomes" in llm
    page = client.get("/sessions/calibrated0001").text
    assert "P(beats the benchmark over 20 trading days): 57%" in page
    assert "calibrated on 1,234 past outcomes to 2024-05-31, ECE 0.012" in page
    zh = client.get("/sessions/calibrated0001", headers={"Accept-Language": "zh-CN"}).text
    assert "20 个交易日内跑赢基准的概率：57%" in zh and "基于截至 2024-05-31 的 1,234 个历史结果校准" in zh
    assert "未校准" in client.get(f"/sessions/{session.id}", headers={"Accept-Language": "zh-CN"}).text
