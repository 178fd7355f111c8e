"""Panel debate (debate-panel spec 1-6): consensus in code, min/max rounds, moderator ending, source
re-validation, the artifact's exact JSON, point in time, the tools' JSON and page-index cache, and four
experts really in parallel. Real SQLite store seeded through data_engineering's importers; the model is
the scripted provider answering per caller."""

from __future__ import annotations

import json
import threading
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from stockdesk.data_engineering.application import GetFilingPagesUseCase, GetNewsUseCase
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.debate.application.consensus import is_consensus
from stockdesk.debate.application.panel_context import NO_INTRADAY, load_context
from stockdesk.debate.application.panel_tools import PanelTools, news_pk
from stockdesk.debate.application.services.panel_debate import PanelDebateService, PanelResult
from stockdesk.debate.application.sources import validate_sources
from stockdesk.debate.domain.dtos.panel import (
    ArticleSource,
    ChartSource,
    ExpertTurn,
    SecFilingSource,
)
from stockdesk.debate.domain.model.enums import DebateDirection, PanelAction
from stockdesk.debate.infrastructure.agents.moderator.output_parser import parse_moderator_decision
from stockdesk.debate.infrastructure.agents.panel_expert.output_parser import parse_expert_reply
from stockdesk.debate.infrastructure.agents.sampling import SAMPLING
from stockdesk.debate.infrastructure.tools.page_index import SUMMARY_INPUT_CHARS, FilingPageIndex, index_path
from stockdesk.debate.infrastructure.tools.page_parts import split_page
from stockdesk.judge.application.services.debate_outcome import judge_input_from_outcome
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.domain.dtos import ToolCall
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.errors import BadRequestException, LLMOutputParseError
from tests.conftest import scripted_service
from tests.debate.panel_support import (
    AS_OF,
    DIGESTS,
    FUTURE_TITLE,
    LATE_SAME_DAY,
    LATER_Q,
    SYMBOL,
    TEN_K,
    TEN_Q,
    PanelScript,
    decision,
    panel_data,
    scripted_panel,
    seed_store,
    turn,
)

ROLES = ("fundamental", "risk", "growth", "sentiment")
TEN_Q_PAGES = 3  # 30 paragraphs of ~1,500 characters in pages of at most 20,000


def summary_calls(repository: SqlMarketDataRepository) -> int:
    """Model calls that index the 10-Q: one per short page, parts + one combine per long page."""
    pages = panel_data(repository).filing_pages.execute(SYMBOL, TEN_Q, AS_OF)
    parts = [len(split_page(p.text, SUMMARY_INPUT_CHARS)) for p in pages]
    return sum(1 if n == 1 else n + 1 for n in parts)


@pytest.fixture
def repository(database: Database, tmp_path: Path) -> SqlMarketDataRepository:
    return seed_store(database, tmp_path)


def llm_over(script: PanelScript, database: Database) -> LLMService:
    return scripted_service(ScriptedProvider([script]), database=database)


def panel(
    script: PanelScript,
    repository: SqlMarketDataRepository,
    settings: Settings,
    database: Database,
    **kw: Any,
) -> tuple[PanelDebateService, LLMService]:
    service, llm, _ = scripted_panel(script, repository, settings.cache_dir, database, **kw)
    return service, llm


def tools_over(
    script: PanelScript, repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> PanelTools:
    index = FilingPageIndex(LLMHandle(llm_over(script, database), SAMPLING), settings.cache_dir)
    return PanelTools(panel_data(repository), index.index)


def ex(action: str, confidence: float) -> ExpertTurn:
    return ExpertTurn(text="t", action=PanelAction(action), confidence=confidence)


# ---- consensus rule ---------------------------------------------------------------------------------
def test_consensus_is_all_four_actions_equal_and_every_confidence_at_least_the_threshold() -> None:
    assert is_consensus([ex("BUY", 0.7), ex("BUY", 0.8), ex("BUY", 0.95), ex("BUY", 1.0)])
    assert not is_consensus([ex("BUY", 0.69), ex("BUY", 0.8), ex("BUY", 0.95), ex("BUY", 1.0)])
    assert not is_consensus([ex("BUY", 0.9), ex("BUY", 0.9), ex("HOLD", 0.9), ex("BUY", 0.9)])
    assert is_consensus([ex("SELL", 0.6)] * 4, threshold=0.6)
    assert not is_consensus([])


def test_round_limits_are_validated(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    script = PanelScript()
    with pytest.raises(BadRequestException, match=r"min_rounds must be at least 1 \(got 0\)"):
        panel(script, repository, settings, database, min_rounds=0)
    with pytest.raises(BadRequestException, match=r"max_rounds \(2\) must be >= min_rounds \(3\)"):
        panel(script, repository, settings, database, min_rounds=3, max_rounds=2)
    service, _ = panel(script, repository, settings, database, min_rounds=1, max_rounds=1)
    assert service.run(SYMBOL, AS_OF, DIGESTS).rounds == 1 and script.calls["moderator"] == 1


# ---- rounds and the moderator -----------------------------------------------------------------------
def test_two_rounds_are_played_even_with_consensus_in_round_one(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    script = PanelScript(
        expert=lambda role, rnd: turn("BUY", 0.9), moderator=lambda rnd, p: decision("continue", "BUY", 0.85)
    )
    service, _ = panel(script, repository, settings, database)
    result = service.run(SYMBOL, AS_OF, DIGESTS)
    assert result.rounds == 2 and result.consensus is True
    assert script.expert_calls == 8
    assert script.calls["moderator"] == 1  # not asked after round 1; consensus in round 2 ends it
    moderator_prompt = next(a["input"] for a in result.audit if a["agent"] == "panel.moderator")
    assert "已达成共识" in moderator_prompt and "必须结束" in moderator_prompt
    assert result.outcome.direction == DebateDirection.BULLISH and result.outcome.confidence == 0.85


def test_max_rounds_stops_the_debate_whatever_the_moderator_says(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    split = {"fundamental": "BUY", "risk": "SELL", "growth": "BUY", "sentiment": "HOLD"}
    script = PanelScript(
        expert=lambda role, rnd: turn(split[role], 0.8),
        moderator=lambda rnd, p: decision("continue", "SELL", 0.55),
    )
    service, _ = panel(script, repository, settings, database, max_rounds=3)
    result = service.run(SYMBOL, AS_OF, DIGESTS)
    assert result.rounds == 3 and result.consensus is False
    assert script.expert_calls == 12 and script.calls["moderator"] == 2  # rounds 2 and 3
    last = [a for a in result.audit if a["agent"] == "panel.moderator"][-1]
    assert last["round"] == 3 and "已到最大轮数" in last["input"]
    assert [r["round"] for r in result.artifact["rounds"]] == [1, 2, 3]
    assert result.outcome.direction == DebateDirection.BEARISH and result.outcome.confidence == 0.55


def test_the_moderator_ends_the_debate_after_the_minimum_rounds(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    split = {"fundamental": "BUY", "risk": "SELL", "growth": "BUY", "sentiment": "BUY"}
    ends_in_round_3 = PanelScript(
        expert=lambda role, rnd: turn(split[role], 0.9),
        moderator=lambda rnd, p: decision("end" if rnd == 3 else "continue", "HOLD", 0.5),
    )
    service, _ = panel(ends_in_round_3, repository, settings, database)
    result = service.run(SYMBOL, AS_OF, DIGESTS)
    assert result.rounds == 3 and ends_in_round_3.calls["moderator"] == 2
    assert result.outcome.direction == DebateDirection.NEUTRAL

    ends_at_once = PanelScript(
        expert=lambda role, rnd: turn(split[role], 0.9), moderator=lambda rnd, p: decision("end")
    )
    service, _ = panel(ends_at_once, repository, settings, database)
    assert service.run(SYMBOL, AS_OF, DIGESTS).rounds == 2
    assert ends_at_once.calls["moderator"] == 1


def test_round_two_experts_see_the_first_round_and_the_outcome_feeds_the_judge(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    script = PanelScript(expert=lambda role, rnd: turn("HOLD", 0.5, text=f"{role} says round {rnd}"))
    service, _ = panel(script, repository, settings, database)
    result = service.run(SYMBOL, AS_OF, DIGESTS)
    round_two = next(a["input"] for a in result.audit if a["agent"] == "panel.risk" and a["round"] == 2)
    assert "第1轮 growth：HOLD 0.50 — growth says round 1" in round_two
    round_one = next(a["input"] for a in result.audit if a["agent"] == "panel.risk" and a["round"] == 1)
    assert "这是第一轮" in round_one and "technical_analyst：Bullish（0.66）" in round_one
    judge_input = judge_input_from_outcome(SYMBOL, result.outcome.model_dump(mode="json"))
    assert judge_input.direction.value == "NEUTRAL" and judge_input.confidence == 0.6
    assert judge_input.bull_thesis == "revenue up 12%" and judge_input.risk_factors == ["demand slowdown"]
    assert judge_input.conflict_resolution == "growth outweighs the order slowdown for now"
    assert {a["agent"] for a in result.audit} == {f"panel.{r}" for r in ROLES} | {"panel.moderator"}
    assert all(a["tokens"] == 150 for a in result.audit)


# ---- sources ----------------------------------------------------------------------------------------
def test_validate_sources_matches_canonical_keys_and_never_substitutes() -> None:
    filing = SecFilingSource(ticker="XMPL", form="10-Q", filed_date="2024-02-02", accession_number=TEN_Q)
    chart = ChartSource(ticker="XMPL", start_date="2024-01-31", end_date="2024-03-01")
    article = ArticleSource(pk="id#XMPL:abc123def456", title="Example Widgets beats quarterly estimates")
    cited = [
        SecFilingSource(
            ticker=" xmpl ", form="10-q", filed_date="20240202", accession_number="000005432124000012"
        ),
        ChartSource(ticker="xmpl", start_date="2024/01/31", end_date="20240301"),
        ArticleSource(pk="ID#XMPL:ABC123DEF456", title="another title"),
        ArticleSource(pk="id#XMPL:abc123def457", title=article.title),  # one character off: fabricated
        ChartSource(ticker="XMPL", start_date="2024-01-01", end_date="2024-03-01"),  # another window
        SecFilingSource(
            ticker="XMPL", form="10-K", filed_date="2023-11-03", accession_number=TEN_K
        ),  # not given
        filing,  # cited twice: kept once, not counted as dropped
    ]
    kept, dropped = validate_sources(cited, [article, chart, filing])
    assert kept == [filing, chart, article]  # the allowed entries themselves
    assert dropped == 3


def test_fabricated_sources_are_dropped_and_counted_never_substituted(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    fake = {
        "type": "article",
        "pk": "id#XMPL:000000000000",
        "title": "Example Widgets beats quarterly estimates",
    }
    cites = {
        "fundamental": ["F1", "C1", "N9", fake],  # N9 is not listed; `fake` has a real title, a made-up pk
        "risk": [
            {
                "type": "sec_filing",
                "ticker": "xmpl",
                "form": "10-Q",
                "filed_date": "20240202",
                "accession_number": "000005432124000012",
            }
        ],
        "growth": ["n1", {"type": "nonsense"}],
        "sentiment": ["F1", "N2"],  # sentiment is not given filings
    }
    script = PanelScript(expert=lambda role, rnd: turn("HOLD", 0.5, cites[role]))
    service, _ = panel(script, repository, settings, database)
    result = service.run(SYMBOL, AS_OF, DIGESTS)
    assert result.rounds == 2 and result.dropped_sources == 2 * 4  # N9, fake, nonsense, sentiment's F1
    first = result.artifact["rounds"][0]
    q = {
        "type": "sec_filing",
        "ticker": SYMBOL,
        "form": "10-Q",
        "filed_date": "2024-02-02",
        "accession_number": TEN_Q,
    }
    pk = news_pk_for(repository, "https://example.com/news/xmpl-record")  # newest visible article is N1
    chart = {"type": "chart", "ticker": SYMBOL, "start_date": "2024-01-31", "end_date": "2024-03-01"}
    assert first["fundamental"]["sources"] == [q, chart]
    assert first["risk"]["sources"] == [q]
    assert first["growth"]["sources"] == [{"type": "article", "pk": pk, "title": LATE_SAME_DAY}]
    assert [s["type"] for s in first["sentiment"]["sources"]] == ["article"]
    every = [s for r in result.artifact["rounds"] for role in ROLES for s in r[role]["sources"]]
    assert all(s.get("pk") != fake["pk"] for s in every)


def news_pk_for(repository: SqlMarketDataRepository, url: str) -> str:
    item = next(i for i in GetNewsUseCase(repository).execute(SYMBOL, AS_OF) if i.url == url)
    return news_pk(item)


# ---- artifact -----------------------------------------------------------------------------------------
def test_artifact_json_has_exactly_the_spec_fields(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    script = PanelScript(
        expert=lambda role, rnd: turn("SELL", 0.4, ["C1"]),
        moderator=lambda r, p: decision("end", "SELL", 0.7),
    )
    service, _ = panel(script, repository, settings, database)
    result: PanelResult = service.run(" xmpl ", AS_OF, DIGESTS)
    artifact = json.loads(json.dumps(result.artifact))
    assert set(artifact) == {"ticker", "date", "rounds", "conclusion"}
    assert artifact["ticker"] == SYMBOL and artifact["date"] == "20240301"
    assert artifact["conclusion"] == {"text": "panel says SELL", "action": "SELL", "confidence": 0.7}
    for number, played in enumerate(artifact["rounds"], 1):
        assert set(played) == {"round", *ROLES} and played["round"] == number
        for role in ROLES:
            assert set(played[role]) == {"text", "action", "confidence", "sources"}
            assert played[role]["action"] == "SELL" and played[role]["confidence"] == 0.4
    assert result.outcome.symbol == SYMBOL and result.outcome.direction == DebateDirection.BEARISH


# ---- point in time --------------------------------------------------------------------------------------
def test_nothing_after_as_of_reaches_the_context_or_the_prompts(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    script = PanelScript()
    tools = tools_over(script, repository, settings, database)
    context = load_context(tools, SYMBOL, AS_OF)
    titles = [n.title for n in context.news]
    assert FUTURE_TITLE not in titles and titles[0] == LATE_SAME_DAY  # 23:30 UTC on AS_OF is still AS_OF
    assert context.price is not None and context.price.end_date == "2024-03-01" and context.price.high < 999
    assert context.price.start_date == "2024-01-31" and context.price.first_close == 121.0
    assert context.price.last_close == 143.0 and context.price.pct_change == 18.18  # (143/121-1)*100
    assert context.intraday == NO_INTRADAY
    assert [f.accession_number for f in context.filings] == [TEN_Q, TEN_K]  # not LATER_Q
    assert tools.get_sec_filing_content(SYMBOL, [LATER_Q], as_of=AS_OF) == {"count": 0, "filings": []}
    pages = GetFilingPagesUseCase(repository)
    assert pages.execute(SYMBOL, LATER_Q, AS_OF) == []  # filed 2024-05-03
    assert [p.page_no for p in pages.execute(SYMBOL, LATER_Q, date(2024, 5, 3))] == [1, 2, 3]
    rows = tools.get_ohlcv(SYMBOL, "2024-02-20", "2024-03-08", as_of=AS_OF)["rows"]
    assert rows[-1]["ts"] == "2024-03-01T00:00:00" and all(r["close"] < 999 for r in rows)

    service, _ = panel(script, repository, settings, database)
    result = service.run(SYMBOL, AS_OF, DIGESTS)
    prompts = "\n".join(a["input"] for a in result.audit)
    assert FUTURE_TITLE not in prompts and "999" not in prompts and LATER_Q not in prompts
    assert LATE_SAME_DAY in prompts


def test_experts_see_only_their_sections_and_sources(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    script = PanelScript()
    service, _ = panel(script, repository, settings, database)
    result = service.run(SYMBOL, AS_OF, DIGESTS)
    prompt = {a["agent"]: a["input"] for a in result.audit if a["round"] == 1}
    assert (
        "F1 公告 10-Q 2024-02-02" in prompt["panel.fundamental"]
        and "C1 日线图" in prompt["panel.fundamental"]
    )
    assert "公告：" not in prompt["panel.sentiment"] and "F1" not in prompt["panel.sentiment"]
    assert "行情" not in prompt["panel.growth"] and "C1" not in prompt["panel.growth"]
    # thin lists only (spec 4): titles and pks, the filing list; bodies and page indexes on demand
    assert (
        "Example Widgets opens a new plant in Ohio" in prompt["panel.risk"]
        and "pk id#XMPL:" in prompt["panel.risk"]
    )
    assert (
        "doubles spring capacity" not in prompt["panel.risk"] and "widget results" not in prompt["panel.risk"]
    )
    assert script.calls["page_summary"] == 0
    assert "收盘 121→143（+18.18%）" in prompt["panel.risk"]  # computed in code
    assert NO_INTRADAY in prompt["panel.sentiment"]


# ---- tools ------------------------------------------------------------------------------------------------
def test_news_and_ohlcv_tools_answer_in_the_spec_shapes(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    tools = tools_over(PanelScript(), repository, settings, database)
    listed = tools.get_news_list(tickers=[SYMBOL], keywords=["plant"], as_of=AS_OF)
    assert listed["count"] == 1 and listed["filters"] == {"tickers": [SYMBOL], "keywords": ["plant"]}
    article = listed["articles"][0]
    assert set(article) == {"pk", "title", "url", "tickers", "publish_et_iso", "gsi_utc_pk", "utc_ms", "path"}
    assert (
        article["publish_et_iso"] == "2024-02-20T08:15:00-05:00" and article["gsi_utc_pk"] == "UTC#2024-02-20"
    )
    assert article["utc_ms"] == 1708434900000 and article["tickers"] == [SYMBOL]

    everything = tools.get_news_list(tickers=[SYMBOL], as_of=AS_OF)
    beats = next(a for a in everything["articles"] if "beats" in a["title"])
    content = tools.get_news_content(pks=[beats["pk"], "id#XMPL:ffffffffffff"], as_of=AS_OF)
    assert content["count"] == 1
    without_prefix = tools.get_news_content(pks=[beats["pk"].removeprefix("id#")], as_of=AS_OF)
    assert without_prefix["articles"][0]["pk"] == beats["pk"]  # small models drop the "id#"
    body = content["articles"][0]
    assert set(body) == {"pk", "title", "body", "cached", "body_truncated"}
    assert (
        body["body"].startswith("Example Widgets reported revenue of $1.2 billion")
        and not body["body_truncated"]
    )

    daily = tools.get_ohlcv(SYMBOL, "2024-02-26", "2024-03-01", as_of=AS_OF)
    assert set(daily) == {"ticker", "start_date", "end_date", "interval", "rows"}
    assert [r["ts"] for r in daily["rows"]][:2] == ["2024-02-26T00:00:00", "2024-02-27T00:00:00"]
    assert set(daily["rows"][0]) == {"ts", "open", "high", "low", "close", "volume"}
    intraday = tools.get_ohlcv(SYMBOL, "2024-03-01", "2024-03-01", interval="5m", as_of=AS_OF)
    assert intraday["rows"] == [] and intraday["error"] == "no_intraday_data"
    with pytest.raises(BadRequestException, match="start_date"):
        tools.get_ohlcv(SYMBOL, "March 1", "2024-03-01", as_of=AS_OF)


def test_filing_tools_index_first_then_pages_and_the_index_is_cached(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    script = PanelScript()
    tools = tools_over(script, repository, settings, database)
    listed = tools.get_sec_filing_list(SYMBOL, forms=["10-q"], as_of=AS_OF)
    assert listed["cik"] == "0000054321" and listed["company_name"] == "Example Widgets, Inc."
    assert listed["count"] == 1
    assert listed["filings"][0] == {
        "form": "10-Q",
        "filed_date": "2024-02-02",
        "report_date": None,
        "accession_number": TEN_Q,
        "primary_document": None,
    }

    index_only = tools.get_sec_filing_content(SYMBOL, [TEN_Q], as_of=AS_OF)
    filing = index_only["filings"][0]
    assert "content" not in filing and "page" not in filing and filing["cached"] is False
    assert filing["total_pages"] == TEN_Q_PAGES
    assert filing["index"] == [
        {"page": str(p), "page_summary": f"page {p} of 3: widget results"} for p in (1, 2, 3)
    ]
    assert script.calls["page_summary"] == summary_calls(repository)  # one short summary per page
    cache = index_path(settings.cache_dir, SYMBOL, TEN_Q)
    assert cache == settings.home / "cache" / "debate" / "filings_index" / "XMPL_000005432124000012.json"
    assert json.loads(cache.read_text("utf-8"))["index"] == filing["index"]

    with_page = tools.get_sec_filing_content(SYMBOL, ["000005432124000012"], page=2, as_of=AS_OF)["filings"][
        0
    ]
    pages = panel_data(repository).filing_pages.execute(SYMBOL, TEN_Q, AS_OF)
    assert with_page["page"] == 2 and with_page["content"] == pages[1].text
    assert 0 < len(with_page["content"]) <= 20_000 and with_page["index"] == filing["index"]
    assert with_page["cached"] is True and script.calls["page_summary"] == summary_calls(
        repository
    )  # not regenerated
    assert tools.get_sec_filing_content(SYMBOL, [TEN_Q], page=9, as_of=AS_OF)["filings"][0]["error"] == (
        "page_out_of_range"
    )

    fresh = PanelScript()  # another process: the file is read, the model is not asked
    again = tools_over(fresh, repository, settings, database).get_sec_filing_content(
        SYMBOL, [TEN_Q], as_of=AS_OF
    )
    assert again["filings"][0]["cached"] is True and fresh.calls["page_summary"] == 0

    no_document = tools.get_sec_filing_content(SYMBOL, [TEN_K], as_of=AS_OF)["filings"][0]
    assert no_document["total_pages"] == 0 and no_document["index"] == []
    assert script.calls["page_summary"] == summary_calls(repository)


def test_a_filing_is_indexed_when_an_expert_asks_and_once_across_turns_and_debates(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    wants_index = {"fundamental", "risk"}
    script = PanelScript(
        tools=lambda role, rnd: (
            [
                ToolCall(
                    id=f"{role}{rnd}",
                    name="get_sec_filing_content",
                    arguments={"ticker": SYMBOL, "accession_numbers": [TEN_Q]},
                )
            ]
            if role in wants_index
            else []
        )
    )
    service, _ = panel(script, repository, settings, database)
    service.run(SYMBOL, AS_OF, DIGESTS)
    service.run(SYMBOL, AS_OF, DIGESTS)
    assert script.calls["page_summary"] == summary_calls(repository)  # built once, then read back
    assert [p.name for p in index_path(settings.cache_dir, SYMBOL, TEN_Q).parent.iterdir()] == [
        "XMPL_000005432124000012.json"
    ]
    index = script.tool_results[0][2][0]["filings"][0]["index"]
    assert [e["page"] for e in index] == ["1", "2", "3"] and "content" not in script.tool_results[0][2][0][
        "filings"
    ][0]
    assert len(script.tool_results) == 2 * 2 * 2  # two experts, two rounds, two debates


# ---- parallel experts ----------------------------------------------------------------------
def test_the_four_experts_of_a_round_run_in_parallel_within_the_callers_run(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    barrier = threading.Barrier(4, timeout=5)  # passes only when all four calls are in flight together
    script = PanelScript(expert=lambda role, rnd: turn("HOLD", 0.5), barrier=barrier)
    service, llm = panel(script, repository, settings, database, max_rounds=2)
    with llm.run_scope("panel-run"):
        result = service.run(SYMBOL, AS_OF, DIGESTS)
    assert result.rounds == 2 and not barrier.broken
    assert len(script.threads) == 4 and all(name.startswith("panel") for name in script.threads)
    calls = script.expert_calls + script.calls["moderator"] + script.calls["page_summary"]
    assert llm.tokens_used("panel-run") == 150 * calls  # the run id reached every expert thread


# ---- strict parsers ------------------------------------------------------------------------
def test_the_parsers_reject_answers_outside_the_vocabulary() -> None:
    reply = parse_expert_reply(
        '<think>x</think>{"text": "ok", "action": "buy", "confidence": 0.7, "sources": ["N1"]}', "risk"
    )
    assert reply.action == PanelAction.BUY and reply.sources == ["N1"]
    with pytest.raises(LLMOutputParseError):
        parse_expert_reply('{"text": "ok", "action": "ACCUMULATE", "confidence": 0.7}', "risk")
    with pytest.raises(LLMOutputParseError):
        parse_expert_reply('{"text": "ok", "action": "BUY", "confidence": 70}', "risk")
    assert parse_moderator_decision(json.dumps(decision("End"))).decision == "end"
    with pytest.raises(LLMOutputParseError):
        parse_moderator_decision(json.dumps({**decision("end"), "decision": "maybe"}))
    with pytest.raises(LLMOutputParseError):
        parse_moderator_decision(json.dumps({"decision": "end"}))  # no conclusion
