"""The five research experts' calls start with one shared prefix, so that a prompt cache reuses it.

Each expert is asked through its real agent and the LLM service; what the scripted provider
received is rendered as the embedded model reads it (ChatML) and compared across the experts.
"""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, create_model

from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.research.infrastructure.agents.catalyst_detective.agent import CatalystDetectiveAgent
from stockdesk.research.infrastructure.agents.financial_auditor.agent import FinancialAuditorAgent
from stockdesk.research.infrastructure.agents.macro_intelligence.agent import MacroIntelligenceAgent
from stockdesk.research.infrastructure.agents.structured_agent import SAMPLING, shared_system_prompt
from stockdesk.research.infrastructure.agents.technical_analyst.agent import TechnicalAnalystAgent
from stockdesk.research.infrastructure.agents.valuation_modeler.agent import ValuationModelerAgent
from tests.conftest import scripted_service

ANSWERS = json.loads(
    (Path(__file__).parents[1] / "coordinator" / "fixtures" / "scripted_answers.json").read_text("utf-8")
)
AGENTS = (
    ValuationModelerAgent,
    TechnicalAnalystAgent,
    FinancialAuditorAgent,
    MacroIntelligenceAgent,
    CatalystDetectiveAgent,
)
MIN_SHARED_CHARS = 600  # the shared system text is 656 characters (401 tokens of Qwen2.5)


def chatml(request: CompletionRequest) -> str:
    """The prompt as llama.cpp feeds it to Qwen2.5 (ChatML), up to the assistant's turn."""
    turns = "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in request.messages)
    return f"{turns}<|im_start|>assistant\n"


def common_prefix(texts: list[str]) -> str:
    """The longest text all of them start with."""
    first, last = min(texts), max(texts)  # the sorted extremes differ where any pair does
    size = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), len(first))
    return first[:size]


def filled_snapshot(agent: Any) -> BaseModel:
    """A snapshot with a distinct value for each placeholder of the agent's user template."""
    names = {field for _, field, _, _ in string.Formatter().parse(agent.template) if field}
    return create_model("Snapshot", **{name: (str, f"<{name}>") for name in names})()  # type: ignore[call-overload]


@pytest.fixture(scope="module")
def requests() -> dict[str, CompletionRequest]:
    """What each expert's call sent, by its output schema."""
    provider = ScriptedProvider([lambda r: json.dumps(ANSWERS[r.schema_name], ensure_ascii=False)] * 5)
    llm = LLMHandle(scripted_service(provider), SAMPLING)
    for agent_class in AGENTS:
        agent = agent_class(llm)
        agent.answer(filled_snapshot(agent))  # type: ignore[arg-type]
    return {r.schema_name: r for r in provider.requests}


def test_all_five_experts_start_with_the_same_long_prefix(requests: dict[str, CompletionRequest]) -> None:
    assert len(requests) == 5
    rendered = [chatml(r) for r in requests.values()]
    shared = common_prefix(rendered)
    assert len(shared) >= MIN_SHARED_CHARS
    # the whole system turn is shared, and so is the opening of the user turn
    assert shared.startswith(f"<|im_start|>system\n{shared_system_prompt()}<|im_end|>\n<|im_start|>user\n")
    assert {r.messages[0].content for r in requests.values()} == {shared_system_prompt()}


def test_the_shared_text_holds_the_common_rules() -> None:
    system = shared_system_prompt()
    for rule in ("禁止自行计算", "原样照抄", "数据不足", "建议买入", "只输出一个 JSON 对象", "简体中文"):
        assert rule in system
    assert "<<<SEARCH_RESULTS>>>" in system  # the injection rule stays in the system turn


def test_each_expert_keeps_its_own_instructions_and_fields(requests: dict[str, CompletionRequest]) -> None:
    """Its role, rules and fields now open the user message, before its data; none went missing."""
    for agent_class in AGENTS:
        agent = agent_class(LLMHandle(scripted_service(ScriptedProvider(["{}"])), SAMPLING))
        request = requests[agent.output_model.__name__]
        user = request.messages[-1].content
        assert user.startswith(agent.instructions + "\n\n")
        assert "<stock_name>" in user[len(agent.instructions) :]  # the data follows
        schema = agent.output_model.model_json_schema()
        for field in schema["properties"]:
            assert f'"{field}"' in agent.instructions, (agent_class.__name__, field)
