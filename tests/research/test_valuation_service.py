"""ValuationModelerService over the real store: input checks, guards, the LLM contract."""

from __future__ import annotations

import json
import logging
import re
from datetime import date

import pytest

from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.research.application.dtos import ValuationModelerResultDTO
from stockdesk.research.application.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder
from stockdesk.research.application.stock_data import StockData
from stockdesk.research.application.valuation_modeler_service import ValuationModelerService
from stockdesk.research.domain.dtos.valuation import (
    FinanceRecordInput,
    StockOverviewInput,
    ValuationDailyInput,
)
from stockdesk.research.infrastructure.agents.structured_agent import SAMPLING
from stockdesk.research.infrastructure.agents.valuation_modeler.agent import ValuationModelerAgent
from stockdesk.research.infrastructure.agents.valuation_modeler.output_parser import parse_valuation_output
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.errors import BadRequestException, LLMOutputParseError, NotFoundException
from tests.conftest import scripted_service
from tests.research.support import AS_OF, populate_store, valuation_answer


class StoreValuationData(StockData):
    """The real StockData over a real store, noting which reads the service made and in what order."""

    def __init__(self, database: Database):
        data = DataEngineeringContainer(Settings(), database)
        super().__init__(data.stock_basic_info, data.daily_bars, data.valuations, data.finance)
        self.calls: list[str] = []

    def get_stock_overview(self, symbol: str, as_of: date) -> StockOverviewInput | None:
        self.calls.append("overview")
        return super().get_stock_overview(symbol, as_of)

    def get_valuation_dailies(self, symbol: str, as_of: date) -> list[ValuationDailyInput]:
        self.calls.append("dailies")
        return super().get_valuation_dailies(symbol, as_of)

    def get_finance_records(self, symbol: str, as_of: date) -> list[FinanceRecordInput]:
        self.calls.append("finance")
        return super().get_finance_records(symbol, as_of)


def service_with(
    database: Database, *answers: str, stored: bool = True
) -> tuple[ValuationModelerService, ScriptedProvider, StoreValuationData]:
    """The service over the real store (populated unless `stored` is False) and a scripted model."""
    if stored:
        populate_store(database)
    provider = ScriptedProvider(list(answers))
    agent = ValuationModelerAgent(LLMHandle(scripted_service(provider), SAMPLING))
    data = StoreValuationData(database)
    return ValuationModelerService(data, ValuationSnapshotBuilder(), agent), provider, data


# Numbers of populate_store's 600001.SH: PE 30 at the top of its history, PEG 1.45, Graham 17.44.
GROUNDED = valuation_answer(
    key_evidence=["PE(TTM) 为 30.0，处于历史 100 分位", "PEG 为 1.45，ROE 为 12.5%"],
    risk_factors=["格雷厄姆安全边际为 -12.8%"],
    reasoning_summary="PE 分位 100、PEG 1.45 显示高估，更像陷阱；安全边际 -12.8%。",
    valuation_verdict="Overvalued",
)


def test_valid_input_gives_a_valid_result(database: Database) -> None:
    """输入完整时产出有效结果; 正常返回符合结构的结果."""
    service, provider, _ = service_with(database, GROUNDED)
    result = service.run("600001.SH", AS_OF)
    assert isinstance(result, ValuationModelerResultDTO)
    assert result.valuation_verdict in {"Undervalued", "Fair", "Overvalued"}
    assert 0 <= result.confidence_score <= 1 and result.key_evidence and result.risk_factors
    assert (
        result.estimated_intrinsic_value_range.lower_bound
        and result.estimated_intrinsic_value_range.upper_bound
    )
    assert result.grounding.passed and result.grounding.numbers_checked >= 5
    assert not result.guards.flagged and provider.calls == 1


def test_coordinator_calls_the_valuation_modeler_directly(database: Database) -> None:
    """Coordinator 调用估值建模师: its own application service, symbol in, result DTO out."""
    service, _, _ = service_with(database, GROUNDED)
    assert ValuationModelerService.__module__.endswith("valuation_modeler_service")
    assert service.run("600001.SH", AS_OF).symbol == "600001.SH"


def test_input_and_output_are_dtos(database: Database) -> None:
    """接口入参与出参为 DTO: the result is a pydantic DTO with no domain model inside."""
    service, _, _ = service_with(database, GROUNDED)
    result = service.run("600001.SH", AS_OF)
    dumped = json.loads(result.model_dump_json())
    assert {"valuation_verdict", "input", "output", "valuation_indicators"} <= set(dumped)
    assert isinstance(dumped["valuation_indicators"], dict)


@pytest.mark.parametrize("symbol", ["", "   ", None])
def test_missing_symbol_is_rejected(symbol: str | None, database: Database) -> None:
    """输入缺失 symbol 时的行为; 测试覆盖输入缺失拒绝: rejected before any data is fetched."""
    service, provider, data = service_with(database, GROUNDED)
    with pytest.raises(BadRequestException) as info:
        service.run(symbol, AS_OF)  # type: ignore[arg-type]
    assert info.value.code == "SYMBOL_REQUIRED" and data.calls == [] and provider.calls == 0


def test_unknown_symbol_is_rejected(database: Database) -> None:
    """该标的不存在时的行为; 测试覆盖标的不存在拒绝: no such stock in the store -> 该标的不存在."""
    service, provider, data = service_with(database, GROUNDED)  # the store holds 600001.SH only
    with pytest.raises(NotFoundException) as info:
        service.run("600999.SH", AS_OF)
    assert "该标的不存在" in info.value.message and info.value.code == "STOCK_NOT_FOUND"
    assert data.calls == ["overview"] and provider.calls == 0


def test_no_financial_data_is_rejected(database: Database) -> None:
    """该标的无财务数据时的行为; 测试覆盖无财务数据拒绝: no finance stored -> clear error, no computation."""
    populate_store(database, quarters=[])
    service, provider, data = service_with(database, GROUNDED, stored=False)
    with pytest.raises(BadRequestException) as info:
        service.run("600001.SH", AS_OF)
    assert "该标的无财务数据，请先同步" in info.value.message and info.value.code == "NO_FINANCIAL_DATA"
    assert "dailies" not in data.calls and provider.calls == 0


@pytest.mark.parametrize("raw", ["我认为估值合理。", '{"valuation_verdict": "Cheap"}'])
def test_unparsable_llm_output_raises(raw: str, caplog: pytest.LogCaptureFixture, database: Database) -> None:
    """LLM 返回非 JSON 或格式错误; 测试覆盖 LLM 解析失败: LLMOutputParseError, raw output logged."""
    service, provider, _ = service_with(database, raw)
    with caplog.at_level(logging.WARNING), pytest.raises(LLMOutputParseError) as info:
        service.run("600001.SH", AS_OF)
    assert info.value.raw_output == raw and provider.calls == 2  # one repair attempt, then give up
    assert any(raw[:10] in r.getMessage() for r in caplog.records)


def test_thinking_tags_are_stripped_before_parsing(database: Database) -> None:
    """LLM 返回含 thinking 标签: <think> is removed before JSON parsing."""
    raw = "<think>PE 分位很低 {maybe}</think>\n" + GROUNDED
    assert parse_valuation_output(raw).valuation_verdict == "Overvalued"
    service, _, _ = service_with(database, raw)
    assert service.run("600001.SH", AS_OF).valuation_verdict == "Overvalued"


def test_precomputed_values_are_in_the_user_prompt(database: Database) -> None:
    """预计算结果在 User Prompt 中呈现; 占位符由代码填充."""
    service, provider, _ = service_with(database, GROUNDED)
    result = service.run("600001.SH", AS_OF)
    prompt = provider.requests[0].messages[-1].content
    assert prompt == result.input
    for text in ("PE 分位：100", "PEG：1.45", "格雷厄姆内在价值：17.44", "安全边际：-12.8%", "示例银行"):
        assert text in prompt
    # every placeholder was filled (the braces left are the JSON shapes of the instructions)
    assert not re.search(r"\{[a-z_0-9]+\}", prompt)


def test_system_prompt_forbids_math_trade_calls_and_guessing(database: Database) -> None:
    service, provider, _ = service_with(database, GROUNDED)
    service.run("600001.SH", AS_OF)
    system = provider.requests[0].messages[0].content
    assert "禁止自行计算" in system and "建议买入" in system and "数据不足" in system


def test_opinions_quote_input_numbers(database: Database) -> None:
    """观点引用输入数据: grounded numbers pass; an invented reading triggers one retry, then a flag."""
    invented = valuation_answer(key_evidence=["PE 处于历史 5% 分位", "PEG 仅为 0.8，ROE 高达 25%"])
    service, provider, _ = service_with(database, invented, invented)
    result = service.run("600001.SH", AS_OF)
    assert provider.calls == 2 and result.guards.retried and result.guards.flagged
    assert set(result.grounding.ungrounded) >= {"5", "0.8", "25"}
    feedback = provider.requests[1].messages[-1].content
    assert "0.8" in feedback and "不在输入数据中" in feedback


def test_ungrounded_then_fixed_on_retry_passes(database: Database) -> None:
    invented = valuation_answer(key_evidence=["PEG 仅为 0.8"])
    service, provider, _ = service_with(database, invented, GROUNDED)
    result = service.run("600001.SH", AS_OF)
    assert provider.calls == 2 and result.guards.retried and not result.guards.flagged
    assert result.grounding.passed


def test_no_trade_instructions(database: Database) -> None:
    """不输出交易建议: 建议买入 is detected, retried with feedback, and flagged if it stays."""
    trade = valuation_answer(reasoning_summary="估值偏低，建议买入，立即建仓。")
    service, provider, _ = service_with(database, trade, trade)
    result = service.run("600001.SH", AS_OF)
    assert result.guards.trade_instructions == ["建议买入", "立即建仓"] and result.guards.flagged
    assert "不得给出交易指令" in provider.requests[1].messages[-1].content


def test_na_data_is_said_to_be_insufficient(database: Database) -> None:
    """N/A 数据处理: N/A reaches the prompt as N/A with the instruction to say 数据不足."""
    populate_store(database, ps_ttm=None)
    service, provider, _ = service_with(database, GROUNDED, stored=False)
    result = service.run("600001.SH", AS_OF)
    assert result.valuation_indicators["ps_ttm"] == "N/A"
    assert "PS(TTM)：N/A" in result.input
    assert "数据不足" in provider.requests[0].messages[0].content


def test_the_overview_reads_the_latest_row_and_falls_back_to_the_window_for_stale_data(
    database: Database,
) -> None:
    """The overview needs one row: it reads the last weeks, and the whole window only when they are empty."""
    populate_store(database)
    data = DataEngineeringContainer(Settings(), database)
    stock = StockData(data.stock_basic_info, data.daily_bars, data.valuations, data.finance)
    fresh = stock.get_stock_overview("600001.SH", AS_OF)
    stale = stock.get_stock_overview("600001.SH", date(2024, 9, 30))  # three months after the last day
    assert fresh is not None and fresh.trade_date == AS_OF and fresh.pe_ttm == 30.0
    assert stale is not None and stale.trade_date == AS_OF and stale.pe_ttm == 30.0
