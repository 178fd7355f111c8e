"""GET /api/v1/research/valuation-model through FastAPI's TestClient on a real SQLite store."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.api_support import api_client
from tests.conftest import scripted_service
from tests.research.support import populate_store, valuation_answer

URL = "/api/v1/research/valuation-model"
GROUNDED = valuation_answer()


def client_for(settings: Settings, *answers: str) -> tuple[TestClient, ScriptedProvider]:
    provider = ScriptedProvider(list(answers) or [GROUNDED])
    container = AppContainer(settings, llm_service=scripted_service(provider))
    populate_store(container.database)
    return api_client(container), provider


def test_http_call_returns_200(settings: Settings) -> None:
    """HTTP 接口可正常调用: ports wired by dependency injection, 200 with the verdict."""
    client, provider = client_for(settings)
    response = client.get(URL, params={"symbol": "600001.SH", "as_of": "2024-06-28"})
    assert response.status_code == 200, response.text
    assert response.json()["valuation_verdict"] == "Fair" and provider.calls == 1


def test_response_has_input_output_and_indicators(settings: Settings) -> None:
    """响应体含 input、output、valuation_indicators, put in by code."""
    client, provider = client_for(settings)
    body = client.get(URL, params={"symbol": "600001.SH", "as_of": "2024-06-28"}).json()
    assert isinstance(body["input"], str) and body["input"] == provider.requests[0].messages[-1].content
    assert body["output"] == GROUNDED
    assert (
        body["valuation_indicators"]["pe_ttm"] == 30.0
        and body["valuation_indicators"]["symbol"] == "600001.SH"
    )
    for field in ("valuation_verdict", "confidence_score", "estimated_intrinsic_value_range", "key_evidence",
                  "risk_factors", "reasoning_summary", "grounding"):  # fmt: skip
        assert field in body


def test_symmetric_with_other_experts(settings: Settings) -> None:
    """与其他专家接口结构对称: input, output and <expert>_indicators at the top level."""
    client, _ = client_for(settings)
    body = client.get(URL, params={"symbol": "600001.SH", "as_of": "2024-06-28"}).json()
    assert {"input", "output", "valuation_indicators", "grounding", "guards", "symbol", "as_of"} <= set(body)


@pytest.mark.parametrize(
    ("params", "code"),
    [({}, "SYMBOL_REQUIRED"), ({"symbol": ""}, "SYMBOL_REQUIRED"), ({"symbol": "60$$1"}, "INVALID_SYMBOL")],
)
def test_missing_or_invalid_symbol_is_400(settings: Settings, params: dict, code: str) -> None:
    """symbol 缺失或无效时返回 400 with a distinguishable code."""
    client, provider = client_for(settings)
    response = client.get(URL, params=params)
    assert response.status_code == 400 and response.json()["error"]["code"] == code
    assert provider.calls == 0


def test_unknown_symbol_is_404(settings: Settings) -> None:
    client, _ = client_for(settings)
    response = client.get(URL, params={"symbol": "600999.SH"})
    assert response.status_code == 404 and response.json()["error"]["code"] == "STOCK_NOT_FOUND"
    assert "该标的不存在" in response.json()["error"]["message"]


def test_no_financials_is_400(settings: Settings) -> None:
    client, _ = client_for(settings)
    response = client.get(URL, params={"symbol": "600001.SH", "as_of": "2022-01-01"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "NO_FINANCIAL_DATA"


def test_llm_parse_failure_is_422(settings: Settings) -> None:
    """LLM 解析失败时返回 422."""
    client, provider = client_for(settings, "not json", "still not json")
    response = client.get(URL, params={"symbol": "600001.SH", "as_of": "2024-06-28"})
    assert response.status_code == 422 and response.json()["error"]["code"] == "LLM_OUTPUT_PARSE_ERROR"
    assert provider.calls == 2


def test_data_comes_through_the_application_interface(settings: Settings, database: Database) -> None:
    """获取股票信息与市场数据 / 获取历史估值日线: read through data_engineering use cases."""
    from datetime import date

    container = AppContainer(settings, llm_service=scripted_service(ScriptedProvider([GROUNDED])))
    populate_store(container.database)
    port = container.research.stock_data
    overview = port.get_stock_overview("600001.SH", date(2024, 6, 28))
    assert overview is not None and overview.stock_name == "示例银行" and overview.pe_ttm == 30.0
    history = port.get_valuation_dailies("600001.SH", date(2024, 6, 28))
    assert len(history) == 300 and history[-1].trade_date == date(2024, 6, 28)
    assert port.get_stock_overview("600999.SH", date(2024, 6, 28)) is None
