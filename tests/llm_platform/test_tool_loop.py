"""The bounded tool loop over the real LLMService (scripted provider) and the audit on SQLite.

Bounds: calls per turn, the turn's token budget; a repeated call answered from the turn's cache;
bad arguments, unknown tools and failing tools answered to the model as errors; an invalid final
answer repaired with the schema enforced and no tools; every call and tool call in `llm calls`.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field
from rich.console import Console
from typer.testing import CliRunner

from stockdesk.llm_platform.application.tool_loop import Tool, ToolLimits, run_tool_loop
from stockdesk.llm_platform.domain.dtos import ChatMessage, CompletionRequest, ToolCall
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider, ScriptedReply
from stockdesk.llm_platform.presentation import cli as cli_module
from stockdesk.llm_platform.presentation.cli import build_llm_cli
from stockdesk.shared.db import Database
from tests.conftest import scripted_service


class Answer(BaseModel):
    action: Literal["BUY", "HOLD", "SELL"]
    confidence: float = Field(ge=0, le=1)


class PriceArgs(BaseModel):
    ticker: str = Field(min_length=1)
    days: int = Field(default=5, ge=1, le=30)


FINAL = json.dumps({"action": "HOLD", "confidence": 0.6})
MESSAGES = [ChatMessage(role="system", content="expert"), ChatMessage(role="user", content="AAPL?")]


class PriceTool:
    """A real tool function that counts its runs; `fail_on` makes one ticker raise."""

    def __init__(self, fail_on: str | None = None):
        self.runs: list[PriceArgs] = []
        self.fail_on = fail_on

    def __call__(self, args: PriceArgs) -> dict[str, Any]:
        self.runs.append(args)
        if args.ticker == self.fail_on:
            raise ValueError(f"no bars for {args.ticker}")
        return {"ticker": args.ticker, "rows": [{"close": 100.0 + i} for i in range(args.days)]}

    def tool(self) -> Tool:
        return Tool("get_price", "Closing prices of the last days.", PriceArgs, self)


def call(n: int, ticker: str = "AAPL", **extra: Any) -> ToolCall:
    return ToolCall(id=f"c{n}", name="get_price", arguments={"ticker": ticker, **extra})


def tool_turns(request: CompletionRequest) -> list[dict[str, Any]]:
    return [json.loads(m.content.split("…(truncated")[0]) for m in request.messages if m.role == "tool"]


def test_a_tool_is_called_its_result_read_and_the_final_answer_validated(database: Database) -> None:
    provider = ScriptedProvider([ScriptedReply(tool_calls=[call(1)]), FINAL])
    service = scripted_service(provider, database=database)
    price = PriceTool()
    loop = run_tool_loop(service, MESSAGES, [price.tool()], response_model=Answer, caller="test.expert")
    assert loop.final.parsed == Answer(action="HOLD", confidence=0.6)
    assert [(o.name, o.status, o.arguments) for o in loop.calls] == [("get_price", "ok", {"ticker": "AAPL"})]
    assert loop.calls[0].result["rows"][0] == {"close": 100.0} and loop.steps == 2
    first, second = provider.requests
    assert [t.name for t in first.tools] == ["get_price"] and first.json_schema is None
    assert first.tools[0].parameters["properties"]["days"] == {
        "default": 5,
        "maximum": 30,
        "minimum": 1,
        "type": "integer",
    }
    assert second.messages[2].tool_calls == [call(1)]
    assert tool_turns(second) == [{"ticker": "AAPL", "rows": [{"close": 100.0 + i} for i in range(5)]}]
    assert second.messages[3].tool_call_id == "c1"


def test_a_repeated_call_is_answered_from_the_turn_cache(database: Database) -> None:
    provider = ScriptedProvider(
        [ScriptedReply(tool_calls=[call(1)]), ScriptedReply(tool_calls=[call(2, days=5)]), FINAL]
    )
    price = PriceTool()
    loop = run_tool_loop(
        scripted_service(provider, database=database), MESSAGES, [price.tool()], response_model=Answer
    )
    assert len(price.runs) == 1  # days=5 is the default: the same call
    assert [o.status for o in loop.calls] == ["ok", "cached"]
    assert loop.calls[1].id == "c2" and loop.calls[1].result == loop.calls[0].result


def test_bad_arguments_unknown_tools_and_failing_tools_are_errors_the_model_reads(database: Database) -> None:
    bad = [
        ToolCall(id="b1", name="get_price", arguments={"ticker": "", "days": 99}),
        ToolCall(id="b2", name="get_news", arguments={}),
        ToolCall(id="b3", name="get_price", error="the tool call is not valid JSON"),
        call(4, ticker="NVDA"),
    ]
    provider = ScriptedProvider([ScriptedReply(tool_calls=bad), FINAL])
    price = PriceTool(fail_on="NVDA")
    limits = ToolLimits(max_calls=10)
    loop = run_tool_loop(
        scripted_service(provider, database=database),
        MESSAGES,
        [price.tool()],
        response_model=Answer,
        limits=limits,
    )
    assert loop.final.parsed.action == "HOLD"  # the turn went on
    assert [o.status for o in loop.calls] == ["error"] * 4
    errors = [t["error"] for t in tool_turns(provider.requests[1])]
    assert "bad arguments for get_price" in errors[0] and "ticker" in errors[0] and "days" in errors[0]
    assert errors[1] == "unknown tool 'get_news'; the tools are: get_price"
    assert errors[2] == "the tool call is not valid JSON"
    assert errors[3] == "get_price failed: no bars for NVDA"
    assert [r.ticker for r in price.runs] == ["NVDA"]  # invalid calls never reach the function


def test_at_most_max_calls_run_then_the_model_must_answer_without_tools(database: Database) -> None:
    endless = ScriptedReply(tool_calls=[call(1, "A"), call(2, "B"), call(3, "C")])
    provider = ScriptedProvider([endless, endless, FINAL])
    price = PriceTool()
    loop = run_tool_loop(
        scripted_service(provider, database=database),
        MESSAGES,
        [price.tool()],
        response_model=Answer,
        limits=ToolLimits(max_calls=4),
    )
    assert len(price.runs) == 3 + 0  # the second answer's A, B, C repeat the first: from the cache
    assert [o.status for o in loop.calls] == ["ok", "ok", "ok", "cached", "refused", "refused"]
    last = provider.requests[-1]
    assert last.tools == [] and last.json_schema is not None  # the final call: schema enforced
    assert "No more tool calls" in last.messages[-1].content
    assert loop.final.parsed.action == "HOLD" and len(provider.requests) == 3


def test_the_turn_token_budget_stops_offering_tools(database: Database) -> None:
    provider = ScriptedProvider([ScriptedReply(tool_calls=[call(1)]), FINAL], tokens_per_call=(900, 200))
    loop = run_tool_loop(
        scripted_service(provider, database=database),
        MESSAGES,
        [PriceTool().tool()],
        response_model=Answer,
        limits=ToolLimits(max_calls=4, max_tokens=1000),
    )
    assert provider.requests[0].tools and provider.requests[1].tools == []
    assert loop.tokens == 2200


def test_a_final_answer_that_does_not_validate_is_repaired_with_the_schema_and_no_tools(
    database: Database,
) -> None:
    provider = ScriptedProvider(["I think hold.", FINAL])
    loop = run_tool_loop(
        scripted_service(provider, database=database), MESSAGES, [PriceTool().tool()], response_model=Answer
    )
    assert loop.final.parsed.action == "HOLD" and loop.final.attempts == 2
    repair = provider.requests[1]
    assert repair.tools == [] and repair.json_schema is not None


def test_large_results_are_cut_for_the_model_but_sized_whole_in_the_audit(database: Database) -> None:
    provider = ScriptedProvider([ScriptedReply(tool_calls=[call(1, days=30)]), FINAL])
    loop = run_tool_loop(
        scripted_service(provider, database=database),
        MESSAGES,
        [PriceTool().tool()],
        response_model=Answer,
        limits=ToolLimits(max_result_chars=100),
    )
    sent = next(m.content for m in provider.requests[1].messages if m.role == "tool")
    assert sent.startswith('{"ticker": "AAPL"') and "truncated" in sent and len(sent) < 160
    assert loop.calls[0].result_chars > 100


def test_every_call_and_its_tool_calls_are_in_the_audit_and_the_calls_command(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_module, "console", Console(width=200))
    provider = ScriptedProvider(
        [ScriptedReply(tool_calls=[call(1), ToolCall(id="x", name="nope")]), FINAL], tokens_per_call=(40, 10)
    )
    service = scripted_service(provider, database=database)
    run_tool_loop(service, MESSAGES, [PriceTool().tool()], response_model=Answer, caller="debate.panel.risk")
    newest, asked = service.recent_calls(5)
    assert newest.tool_calls == [] and newest.purpose == "debate.panel.risk" and newest.tokens == 50
    assert [(t.name, t.status) for t in asked.tool_calls] == [("get_price", "ok"), ("nope", "error")]
    assert asked.tool_calls[0].result_chars == len(json.dumps(PriceTool()(PriceArgs(ticker="AAPL"))))

    runner = CliRunner()
    app = build_llm_cli(lambda: service)
    result = runner.invoke(app, ["calls", "--last", "2", "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert len(lines) == 2
    assert set(lines[1]) >= {"model", "purpose", "tokens", "seconds", "tool_calls"}
    assert lines[1]["tool_calls"][0] == {
        "name": "get_price",
        "arguments": {"ticker": "AAPL"},
        "status": "ok",
        "result_size": asked.tool_calls[0].result_chars,
    }
    assert lines[1]["tool_calls"][1]["error"].startswith("unknown tool 'nope'")
    table = runner.invoke(app, ["calls", "--last", "1"])
    assert table.exit_code == 0 and "debate.panel.risk" in table.output
    assert runner.invoke(app, ["calls", "--last", "0"]).exit_code == 2


@pytest.mark.parametrize("limit", [1, 3])
def test_calls_last_n_lists_the_newest_first(database: Database, limit: int) -> None:
    service = scripted_service(ScriptedProvider([FINAL]), database=database)
    for n in range(3):
        service.generate(f"q{n}", caller=f"c{n}")
    assert [c.purpose for c in service.recent_calls(limit)] == ["c2", "c1", "c0"][:limit]


def test_the_answer_hint_follows_every_batch_of_tool_results(database: Database) -> None:
    provider = ScriptedProvider(
        [ScriptedReply(tool_calls=[call(1)]), ScriptedReply(tool_calls=[call(2, "B")]), FINAL]
    )
    run_tool_loop(
        scripted_service(provider, database=database),
        MESSAGES,
        [PriceTool().tool()],
        response_model=Answer,
        limits=ToolLimits(max_calls=2),
        answer_hint="Answer as JSON now.",
    )
    first_system = provider.requests[0].messages
    assert [m.role for m in first_system] == ["system", "user"]  # no hint before any tool ran
    second, third = provider.requests[1].messages, provider.requests[2].messages
    assert second[-1].role == "user" and second[-1].content == "Answer as JSON now."
    assert third[-1].content.startswith("No more tool calls") and third[-1].content.endswith(
        "Answer as JSON now."
    )
    assert provider.requests[1].tools and provider.requests[2].tools == []
