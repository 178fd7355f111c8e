# ruff: noqa: F811  (the fake server fixture is imported by name)
"""Function calling on each provider path: OpenAI wire format, the embedded Qwen template, scripted.

The OpenAI and embedded paths talk real HTTP to the tiny OpenAI-shaped server of
test_openai_compatible; the embedded path is the EmbeddedProvider pointed at it (as it is pointed
at the local llama.cpp server), so what is checked is the exact text the model would receive and
how its answer is read back.
"""

from __future__ import annotations

import json
from typing import Any

from stockdesk.llm_platform.domain.dtos import ChatMessage, CompletionRequest, ToolCall, ToolSpec
from stockdesk.llm_platform.infrastructure.embedded.provider import EmbeddedProvider
from stockdesk.llm_platform.infrastructure.embedded.tool_template import parse_answer, render_request
from stockdesk.llm_platform.infrastructure.openai_compatible import OpenAICompatibleProvider
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider, ScriptedReply
from tests.llm_platform.test_openai_compatible import FakeOpenAI, server  # noqa: F401

NEWS = ToolSpec(
    name="get_news_content",
    description="Bodies of news articles by pk.",
    parameters={"type": "object", "properties": {"pks": {"type": "array", "items": {"type": "string"}}}},
)
OHLCV = ToolSpec(
    name="get_ohlcv",
    description="Price bars.",
    parameters={"type": "object", "properties": {"ticker": {"type": "string"}}},
)


def conversation() -> list[ChatMessage]:
    """system, user, an assistant turn that called two tools, and their two results."""
    calls = [
        ToolCall(id="c1", name="get_news_content", arguments={"pks": ["id#AAPL:1"]}),
        ToolCall(id="c2", name="get_ohlcv", arguments={"ticker": "AAPL"}),
    ]
    return [
        ChatMessage(role="system", content="You are the risk expert."),
        ChatMessage(role="user", content="Debate AAPL."),
        ChatMessage(role="assistant", content="", tool_calls=calls),
        ChatMessage(role="tool", tool_call_id="c1", name="get_news_content", content='{"count": 1}'),
        ChatMessage(role="tool", tool_call_id="c2", name="get_ohlcv", content='{"rows": []}'),
    ]


# ---- the embedded model: Qwen2.5's template, written and read in code ------------------------------


def test_the_tools_go_into_the_system_turn_as_the_qwen_template_writes_them() -> None:
    plain = render_request(CompletionRequest(messages=conversation()[:2], tools=[NEWS, OHLCV]))
    system = plain.messages[0].content
    assert plain.tools == []
    assert system.startswith("You are the risk expert.\n\n# Tools\n\n")
    block = system.split("<tools>\n", 1)[1].split("\n</tools>", 1)[0].splitlines()
    assert [json.loads(line)["function"]["name"] for line in block] == ["get_news_content", "get_ohlcv"]
    assert json.loads(block[0]) == {"type": "function", "function": NEWS.model_dump()}
    assert system.endswith(
        '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>'
    )


def test_without_a_system_turn_the_template_default_one_carries_the_tools() -> None:
    plain = render_request(CompletionRequest(messages=conversation()[1:2], tools=[NEWS]))
    assert plain.messages[0].role == "system"
    assert plain.messages[0].content.startswith("You are Qwen, created by Alibaba Cloud.")
    assert "<tools>" in plain.messages[0].content


def test_earlier_calls_and_their_results_are_written_as_tool_call_and_tool_response_turns() -> None:
    plain = render_request(CompletionRequest(messages=conversation(), tools=[NEWS]))
    roles = [m.role for m in plain.messages]
    assert roles == ["system", "user", "assistant", "user"]  # the two results share one user turn
    assistant, results = plain.messages[2].content, plain.messages[3].content
    assert assistant == (
        '<tool_call>\n{"name": "get_news_content", "arguments": {"pks": ["id#AAPL:1"]}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_ohlcv", "arguments": {"ticker": "AAPL"}}\n</tool_call>'
    )
    assert results == (
        '<tool_response>\n{"count": 1}\n</tool_response>\n<tool_response>\n{"rows": []}\n</tool_response>'
    )
    assert all(m.name is None and not m.tool_calls for m in plain.messages)


def test_a_tagged_call_is_read_with_its_arguments_and_the_text_around_it() -> None:
    text = 'Let me look.\n<tool_call>\n{"name": "get_ohlcv", "arguments": {"ticker": "AAPL"}}\n</tool_call>'
    rest, calls = parse_answer(text, ["get_ohlcv"])
    assert rest == "Let me look."
    assert [(c.name, c.arguments, c.error) for c in calls] == [("get_ohlcv", {"ticker": "AAPL"}, None)]
    assert parse_answer(text, ["get_ohlcv"])[1][0].id == calls[0].id  # stable ids: replays match


def test_several_calls_an_unclosed_tag_and_quoted_arguments_are_read() -> None:
    text = (
        '<tool_call>{"name": "get_news_content", "arguments": "{\\"pks\\": [\\"p1\\"]}"}</tool_call>\n'
        '<tool_call>\n{"name": "get_ohlcv", "arguments": {"ticker": "NVDA"}}'
    )
    _, calls = parse_answer(text, ["get_news_content", "get_ohlcv"])
    assert [(c.name, c.arguments) for c in calls] == [
        ("get_news_content", {"pks": ["p1"]}),
        ("get_ohlcv", {"ticker": "NVDA"}),
    ]
    assert len({c.id for c in calls}) == 2


def test_malformed_calls_come_back_as_calls_with_an_error_for_the_model() -> None:
    text = (
        '<tool_call>{"name": "get_ohlcv", "arguments": {"ticker": "AAPL"</tool_call>'
        '<tool_call>{"arguments": {}}</tool_call>'
        '<tool_call>{"name": "get_ohlcv", "arguments": [1, 2]}</tool_call>'
    )
    _, calls = parse_answer(text, ["get_ohlcv"])
    assert len(calls) == 3
    assert "not valid JSON" in (calls[0].error or "")
    assert "needs" in (calls[1].error or "") and calls[1].name == ""
    assert "JSON object" in (calls[2].error or "") and calls[2].name == "get_ohlcv"


def test_a_bare_call_object_for_an_offered_tool_is_a_call_and_a_final_answer_is_not() -> None:
    bare = '```json\n{"name": "get_ohlcv", "arguments": {"ticker": "GOOG"}}\n```'
    assert parse_answer(bare, ["get_ohlcv"])[1][0].arguments == {"ticker": "GOOG"}
    assert parse_answer(bare, ["get_news_content"]) == (bare, [])  # not offered: it is an answer
    final = '{"text": "hold", "action": "HOLD", "confidence": 0.5, "sources": []}'
    assert parse_answer(final, ["get_ohlcv"]) == (final, [])


class _Server:
    """What EmbeddedProvider needs of the llama.cpp server: its URL."""

    def __init__(self, url: str):
        self.url = url

    def base_url(self) -> str:
        return self.url

    def restart_if_dead(self) -> bool:
        return False

    def stop(self) -> None:
        pass


def test_the_embedded_provider_sends_the_template_text_and_returns_structured_calls(
    server: FakeOpenAI,
) -> None:
    server.content = (
        '<tool_call>\n{"name": "get_ohlcv", "arguments": {"ticker": "AAPL", "interval": "5m"}}\n</tool_call>'
    )
    provider = EmbeddedProvider(_Server(server.base_url))  # type: ignore[arg-type]
    response = provider.complete(CompletionRequest(messages=conversation(), tools=[NEWS, OHLCV]))
    body = server.received[-1].body
    assert "tools" not in body  # the server only ever sees plain ChatML turns
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]
    assert "<tools>" in body["messages"][0]["content"]
    assert "<tool_response>" in body["messages"][3]["content"]
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("get_ohlcv", {"ticker": "AAPL", "interval": "5m"})
    ]
    assert response.text == ""


def test_the_embedded_provider_reads_no_calls_when_none_were_offered(server: FakeOpenAI) -> None:
    server.content = '<tool_call>{"name": "get_ohlcv", "arguments": {}}</tool_call>'
    provider = EmbeddedProvider(_Server(server.base_url))  # type: ignore[arg-type]
    response = provider.complete(CompletionRequest(messages=conversation()))
    assert response.tool_calls == [] and "<tool_call>" in response.text
    assert "<tools>" not in server.received[-1].body["messages"][0]["content"]


# ---- remote providers: the OpenAI wire format through the SDK ------------------------------------------


def _calls_body(arguments: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "get_ohlcv", "arguments": arguments},
                        }
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }


def _remote(server: FakeOpenAI) -> OpenAICompatibleProvider:
    return OpenAICompatibleProvider(name="remote", base_url=server.base_url, model="m", api_key="k")


def test_the_openai_path_sends_tools_and_history_in_the_wire_format(server: FakeOpenAI) -> None:
    server.body = _calls_body('{"ticker": "AAPL"}')
    response = _remote(server).complete(CompletionRequest(messages=conversation(), tools=[NEWS, OHLCV]))
    body = server.received[-1].body
    assert [t["function"]["name"] for t in body["tools"]] == ["get_news_content", "get_ohlcv"]
    assert body["tools"][0] == {"type": "function", "function": NEWS.model_dump()}
    assistant = body["messages"][2]
    assert assistant["tool_calls"][0]["function"] == {
        "name": "get_news_content",
        "arguments": '{"pks": ["id#AAPL:1"]}',
    }
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": '{"count": 1}'}
    assert [(c.id, c.name, c.arguments, c.error) for c in response.tool_calls] == [
        ("call_a", "get_ohlcv", {"ticker": "AAPL"}, None)
    ]


def test_the_openai_path_turns_malformed_arguments_into_an_error(server: FakeOpenAI) -> None:
    server.body = _calls_body('{"ticker": "AAPL"')
    response = _remote(server).complete(CompletionRequest(messages=conversation()[:2], tools=[OHLCV]))
    assert response.tool_calls[0].name == "get_ohlcv"
    assert "not valid JSON" in (response.tool_calls[0].error or "")
    server.body = _calls_body("[1]")
    response = _remote(server).complete(CompletionRequest(messages=conversation()[:2], tools=[OHLCV]))
    assert "JSON object" in (response.tool_calls[0].error or "")


def test_without_tools_the_openai_request_carries_no_tools_key(server: FakeOpenAI) -> None:
    _remote(server).complete(CompletionRequest(messages=conversation()[:2]))
    assert "tools" not in server.received[-1].body


# ---- the scripted provider ------------------------------------------------------------------------------


def test_the_scripted_provider_replays_tool_calls_only_when_tools_are_offered() -> None:
    call = ToolCall(id="s1", name="get_ohlcv", arguments={"ticker": "AAPL"})
    provider = ScriptedProvider([ScriptedReply(tool_calls=[call], text="checking")])
    offered = provider.complete(CompletionRequest(messages=conversation()[:2], tools=[OHLCV]))
    assert offered.tool_calls == [call] and offered.text == "checking"
    plain = provider.complete(CompletionRequest(messages=conversation()[:2]))
    assert plain.tool_calls == []
