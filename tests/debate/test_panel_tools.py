"""Panel experts with real tool calls (spec 3, 5): the agent -> tools -> agent loop inside a debate.

Sources are re-validated against the expert's lists plus what its own tool calls returned in that
turn; tools read nothing after the debate date; bad calls are answered as errors and the debate
goes on; the per-turn call limit holds; with the limit at 0 no tools are offered. Real SQLite store,
the scripted provider replaying the calls, the real tool functions and the real audit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.debate.application.services.panel_debate import PanelDebateService
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.application.tool_loop import ToolLimits
from stockdesk.llm_platform.domain.dtos import ToolCall
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.debate.panel_support import (
    AS_OF,
    DIGESTS,
    FUTURE_TITLE,
    LATER_Q,
    SYMBOL,
    TEN_Q,
    PanelScript,
    scripted_panel,
    seed_store,
    turn,
)


@pytest.fixture
def repository(database: Database, tmp_path: Path) -> SqlMarketDataRepository:
    return seed_store(database, tmp_path)


def panel(
    script: PanelScript,
    repository: SqlMarketDataRepository,
    settings: Settings,
    database: Database,
    limits: ToolLimits | None = None,
) -> tuple[PanelDebateService, LLMService, ScriptedProvider]:
    return scripted_panel(
        script, repository, settings.cache_dir, database, tool_limits=limits or ToolLimits()
    )


def call(name: str, tag: str = "c", **arguments: Any) -> ToolCall:
    return ToolCall(id=f"{tag}-{name}", name=name, arguments=arguments)


FEBRUARY = {"type": "chart", "ticker": SYMBOL, "start_date": "2024-02-01", "end_date": "2024-02-29"}
JANUARY = {"type": "chart", "ticker": SYMBOL, "start_date": "2024-01-02", "end_date": "2024-01-31"}


def test_experts_cite_what_their_own_tool_calls_returned_in_that_turn_only(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    def tools(role: str, rnd: int) -> list[ToolCall]:
        if role == "growth" and rnd == 1:  # growth is given no chart: it fetches one
            return [call("get_ohlcv", ticker=SYMBOL, start_date="2024-02-01", end_date="2024-02-29")]
        if role == "sentiment" and rnd == 1:  # sentiment is given no filings: it lists them
            return [call("get_sec_filing_list", ticker=SYMBOL, forms=["10-Q"])]
        return []

    cites = {
        "growth": [FEBRUARY, JANUARY],  # January was never fetched
        "sentiment": [TEN_Q, "0000054321-24-999999"],  # an accession number it made up
    }
    script = PanelScript(expert=lambda role, rnd: turn("HOLD", 0.5, cites.get(role, [])), tools=tools)
    service, llm, _ = panel(script, repository, settings, database)
    result = service.run(SYMBOL, AS_OF, DIGESTS)

    first, second = result.artifact["rounds"][:2]
    assert first["growth"]["sources"] == [FEBRUARY]
    assert first["sentiment"]["sources"] == [
        {
            "type": "sec_filing",
            "ticker": SYMBOL,
            "form": "10-Q",
            "filed_date": "2024-02-02",
            "accession_number": TEN_Q,
        }
    ]
    assert second["growth"]["sources"] == [] and second["sentiment"]["sources"] == []  # no calls in round 2
    assert result.dropped_sources == 2 + 4 and result.tool_calls == 2

    growth = next(a for a in result.audit if a["agent"] == "panel.growth" and a["round"] == 1)
    assert [(c["name"], c["status"]) for c in growth["tool_calls"]] == [("get_ohlcv", "ok")]
    assert growth["tool_calls"][0]["result_chars"] > 0 and "result" not in growth["tool_calls"][0]
    audited = [c for c in llm.recent_calls(100) if c.tool_calls]
    assert sorted(c.purpose or "" for c in audited) == ["debate.panel.growth", "debate.panel.sentiment"]
    assert all(t.status == "ok" and t.result_chars > 0 for c in audited for t in c.tool_calls)


def test_tools_read_nothing_after_the_debate_date(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    asks = [
        call("get_ohlcv", ticker=SYMBOL, start_date="2024-02-26", end_date="2024-03-08"),
        call("get_news_list", tickers=[SYMBOL]),
        call("get_sec_filing_content", ticker=SYMBOL, accession_numbers=[LATER_Q]),
        call("get_sec_filing_list", ticker=SYMBOL),
    ]
    script = PanelScript(tools=lambda role, rnd: asks if role == "risk" and rnd == 1 else [])
    service, _, _ = panel(script, repository, settings, database, ToolLimits(max_calls=4))
    service.run(SYMBOL, AS_OF, DIGESTS)
    [(_, _, (bars, news, later, filings))] = script.tool_results
    assert bars["rows"][-1]["ts"].startswith("2024-03-01") and all(r["close"] < 999 for r in bars["rows"])
    assert FUTURE_TITLE not in json.dumps(news) and news["count"] == 4
    assert later == {"count": 0, "filings": []}
    assert LATER_Q not in json.dumps(filings)


def test_bad_calls_and_failing_tools_are_answered_as_errors_and_the_debate_goes_on(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    asks = [
        call("get_ohlcv", "a", ticker=SYMBOL, start_date="March 1", end_date="2024-03-01"),
        call("get_sec_filing_content", "b", ticker=SYMBOL, accession_numbers=[TEN_Q], page=0),
        call("get_price_target", "c", ticker=SYMBOL),
        call("get_ohlcv", "d", ticker=SYMBOL, start_date="2024-03-01", end_date="2024-02-01"),
    ]
    script = PanelScript(tools=lambda role, rnd: asks if role == "fundamental" and rnd == 1 else [])
    service, _, _ = panel(script, repository, settings, database, ToolLimits(max_calls=4))
    result = service.run(SYMBOL, AS_OF, DIGESTS)
    assert result.rounds == 2
    [(_, _, answers)] = script.tool_results
    errors = [a["error"] for a in answers]
    assert "bad arguments for get_ohlcv" in errors[0] and "start_date" in errors[0]
    assert "bad arguments for get_sec_filing_content" in errors[1] and "page" in errors[1]
    assert errors[2].startswith("unknown tool 'get_price_target'")
    assert errors[3] == "get_ohlcv failed: end_date 2024-02-01 is before start_date 2024-03-01"
    fundamental = next(a for a in result.audit if a["agent"] == "panel.fundamental" and a["round"] == 1)
    assert [c["status"] for c in fundamental["tool_calls"]] == ["error"] * 4


def test_an_expert_makes_at_most_the_limit_of_calls_per_turn(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    asks = [call("get_news_list", str(n), tickers=[SYMBOL], keywords=[word]) for n, word in enumerate("abc")]
    script = PanelScript(tools=lambda role, rnd: asks if role == "risk" else [])
    service, _, provider = panel(script, repository, settings, database, ToolLimits(max_calls=2))
    result = service.run(SYMBOL, AS_OF, DIGESTS)
    risk = [a for a in result.audit if a["agent"] == "panel.risk"]
    assert [[c["status"] for c in a["tool_calls"]] for a in risk] == [["ok", "ok", "refused"]] * 2
    finals = [r for r in provider.requests if any(m.role == "tool" for m in r.messages)]
    assert finals and all(r.tools == [] for r in finals)  # after the limit: answer without tools


def test_with_the_limit_at_zero_no_tools_are_offered_and_the_prompt_says_so(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    script = PanelScript(tools=lambda role, rnd: [call("get_news_list", tickers=[SYMBOL])])
    service, _, provider = panel(script, repository, settings, database, ToolLimits(max_calls=0))
    result = service.run(SYMBOL, AS_OF, DIGESTS)
    experts = [r for r in provider.requests if "角色代号" in r.messages[0].content]
    assert experts and all(r.tools == [] for r in experts)
    assert "本轮没有工具可用" in experts[0].messages[0].content
    assert result.tool_calls == 0 and script.tool_results == []


def test_with_tools_the_expert_is_offered_the_five_spec_tools_and_told_the_limit(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    script = PanelScript()
    service, _, provider = panel(script, repository, settings, database, ToolLimits(max_calls=3))
    service.run(SYMBOL, AS_OF, DIGESTS)
    expert = next(r for r in provider.requests if "角色代号：risk" in r.messages[0].content)
    assert [t.name for t in expert.tools] == [
        "get_news_list",
        "get_news_content",
        "get_ohlcv",
        "get_sec_filing_list",
        "get_sec_filing_content",
    ]
    assert set(expert.tools[2].parameters["properties"]) == {"ticker", "start_date", "end_date", "interval"}
    assert "as_of" not in json.dumps([t.parameters for t in expert.tools])  # bound in code, not asked
    assert "最多 3 次" in expert.messages[0].content and "2024-03-01 及之前" in expert.messages[0].content


def test_with_tools_the_answer_format_comes_after_the_tool_results_not_before(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    """A small model shown the JSON format up front answers at once and never calls a tool."""
    script = PanelScript(
        tools=lambda role, rnd: (
            [call("get_news_list", tickers=[SYMBOL])] if role == "growth" and rnd == 1 else []
        )
    )
    service, _, provider = panel(script, repository, settings, database)
    service.run(SYMBOL, AS_OF, DIGESTS)
    growth = [r for r in provider.requests if "角色代号：growth" in r.messages[0].content]
    first, after_tools = growth[0], growth[1]
    assert '"action": "BUY"' not in first.messages[0].content  # no answer format in the system turn
    example = first.messages[1].content.rsplit("<tool_call>", 1)[1]
    assert json.loads(example.split("</tool_call>")[0])["name"] == "get_news_content"
    pk = json.loads(example.split("</tool_call>")[0])["arguments"]["pks"][0]
    assert pk in first.messages[1].content.split("<tool_call>")[0]  # an article of its own list
    assert after_tools.messages[-1].role == "user" and '"action": "BUY"' in after_tools.messages[-1].content

    no_tools, _, plain = panel(PanelScript(), repository, settings, database, ToolLimits(max_calls=0))
    no_tools.run(SYMBOL, AS_OF, DIGESTS)
    system = next(r for r in plain.requests if "角色代号" in r.messages[0].content).messages[0].content
    assert '"action": "BUY"' in system and "<tool_call>" not in system
