"""How the valuation modeler is wired: ports, prompt resources, application interfaces."""

from __future__ import annotations

import ast
import inspect
from datetime import date
from importlib import resources
from pathlib import Path

import stockdesk.research.application.valuation_modeler_service as service_module
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.research.application.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder
from stockdesk.research.application.valuation_modeler_service import ValuationModelerService
from stockdesk.research.domain.dtos.valuation import ValuationSnapshotDTO
from stockdesk.research.infrastructure.agents.structured_agent import SAMPLING
from stockdesk.research.infrastructure.agents.valuation_modeler.agent import ValuationModelerAgent
from stockdesk.shared.db import Database
from tests.conftest import scripted_service
from tests.research.support import AS_OF, populate_store, valuation_answer
from tests.research.test_valuation_service import StoreValuationData

PROMPTS = "stockdesk.research.infrastructure.agents.valuation_modeler"


def imported_modules(module: object) -> set[str]:
    tree = ast.parse(inspect.getsource(module))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_snapshot_comes_through_the_port(database: Database) -> None:
    """通过 Port 获取估值快照: the service uses whatever snapshot builder it is given."""

    class CountingBuilder(ValuationSnapshotBuilder):
        calls = 0

        def build(self, overview_, dailies, finance, as_of) -> ValuationSnapshotDTO:  # type: ignore[override]
            CountingBuilder.calls += 1
            return super().build(overview_, dailies, finance, as_of)

    populate_store(database)
    agent = ValuationModelerAgent(
        LLMHandle(scripted_service(ScriptedProvider([valuation_answer()])), SAMPLING)
    )
    service = ValuationModelerService(StoreValuationData(database), CountingBuilder(), agent)
    service.run("600001.SH", AS_OF)
    assert CountingBuilder.calls == 1
    assert not any("infrastructure" in name for name in imported_modules(service_module))


def test_llm_is_called_through_the_agent_port():
    """调用 LLM: the application layer never imports llm_platform; the agent port's implementation
    calls llm_platform's application interface (the one LLM handle), never its router or adapters."""
    modules = imported_modules(service_module)
    assert not any(name.startswith("stockdesk.llm_platform") for name in modules)
    agent_modules = imported_modules(inspect.getmodule(ValuationModelerAgent))
    assert "stockdesk.research.domain.ports.valuation" in agent_modules  # it is the agent port
    llm = {name for name in agent_modules if name.startswith("stockdesk.llm_platform")}
    assert llm == {"stockdesk.llm_platform.application.llm_handle"}  # llm_platform's application API


def test_prompts_are_loaded_from_resources():
    """Prompt 从资源加载: system.md and user.md beside the agent, not strings in code."""
    base = resources.files(PROMPTS).joinpath("prompts")
    system, user = base.joinpath("system.md").read_text("utf-8"), base.joinpath("user.md").read_text("utf-8")
    agent = ValuationModelerAgent(
        LLMHandle(scripted_service(ScriptedProvider([valuation_answer()])), SAMPLING)
    )
    assert agent.instructions == system.strip()  # the system turn itself is shared by all experts
    for placeholder in ("{stock_name}", "{pe_percentile}", "{peg_ratio}", "{graham_intrinsic_val}"):
        assert placeholder in user
    source = Path(inspect.getfile(ValuationModelerAgent)).read_text("utf-8")
    assert "禁止" not in source and "估值" not in source  # no prompt text in the code


def test_stock_data_uses_data_engineering_use_cases():
    """获取股票信息与市场数据: the data client depends on data_engineering's application interface only."""
    from stockdesk.research.application import stock_data

    modules = imported_modules(stock_data)
    assert "stockdesk.data_engineering.application" in modules
    assert not any(m.startswith("stockdesk.data_engineering.") and ".application" not in m for m in modules)
    params = inspect.signature(stock_data.StockData).parameters
    assert [p.annotation for p in params.values()] == [
        "GetStockBasicInfoUseCase", "GetDailyBarsUseCase", "GetValuationDailiesForTickerUseCase",
        "GetFinanceForTickerUseCase",
    ]  # fmt: skip


def test_as_of_bounds_every_window(database: Database) -> None:
    """Three months before the store's last day: neither later prices nor a later report are seen."""
    populate_store(database)  # prices to AS_OF; the 2024-03-31 quarter is announced on 2024-04-30
    earlier = date(2024, 3, 29)
    agent = ValuationModelerAgent(
        LLMHandle(scripted_service(ScriptedProvider([valuation_answer()])), SAMPLING)
    )
    service = ValuationModelerService(StoreValuationData(database), ValuationSnapshotBuilder(), agent)
    snapshot = service.build_snapshot("600001.SH", earlier)
    assert snapshot.as_of == earlier and snapshot.trade_date == "2024-03-29"
    assert snapshot.latest_report_period == "2023-12-31"
    assert snapshot.pe_ttm is not None and snapshot.pe_ttm < 30.0  # the PE rises to 30 by AS_OF
