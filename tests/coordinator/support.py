"""A real pipeline for coordinator tests: the app container over a populated SQLite store and a
scripted LLM that answers each agent by the schema it asks for (no numbers, so guards pass)."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy import update

from stockdesk.coordinator.application.gateways import ResearchGateway
from stockdesk.coordinator.infrastructure.persistence.models import ResearchSessionRow
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.research.application import ExpertResult, RulesOnlyResultDTO
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.conftest import scripted_service
from tests.research.support import AS_OF, populate_store

SYMBOL = "600001.SH"
__all__ = ["ANSWERS", "AS_OF", "SYMBOL", "ChartsGateway", "Router", "break_charts", "pipeline"]

# one schema-valid answer per agent, by the schema it asks for (the pipeline benchmark reads it too)
ANSWERS: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).parent / "fixtures" / "scripted_answers.json").read_text(encoding="utf-8")
)


class Router:
    """The scripted provider's answer function: by schema name, with per-schema overrides.

    `broken` schemas answer text that is not JSON (the agent fails after its repair attempt);
    `barrier` makes the listed schemas wait for each other, proving they run at the same time.
    """

    def __init__(self) -> None:
        self.broken: set[str] = set()
        self.calls: list[str] = []
        self.barrier: tuple[set[str], threading.Barrier] | None = None
        self._lock = threading.Lock()

    def __call__(self, request: CompletionRequest) -> str:
        name = request.schema_name
        with self._lock:
            self.calls.append(name)
        if self.barrier and name in self.barrier[0]:
            self.barrier[1].wait()
        if name in self.broken:
            return "sorry, no JSON today"
        return json.dumps(ANSWERS[name], ensure_ascii=False)

    def count(self, name: str) -> int:
        return self.calls.count(name)


NEWS_TITLES = (
    "示例银行 业绩 公告：上半年净利润增长",
    "央行 货币政策 利率 调整，银行 行业 景气 回升",
    "示例银行 重大事件：股东 增持 公告",
)


def add_news(container: AppContainer) -> None:
    """A few stored articles before the analysis date, so macro and catalyst have something to read."""
    rows = [
        {"symbol": SYMBOL, "published_at": f"2024-06-{10 + i}T08:00:00", "title": title, "summary": title,
         "body": title * 3, "url": f"https://news.example.com/{i}", "source": "news.example.com"}
        for i, title in enumerate(NEWS_TITLES)
    ]  # fmt: skip
    frames = {"news": pd.DataFrame(rows).assign(published_at=lambda f: pd.to_datetime(f["published_at"]))}
    MarketDataImportService(SqlMarketDataRepository(container.database)).import_frames("news", frames)


def pipeline(
    settings: Settings, router: Router | None = None, *, with_news: bool = False
) -> tuple[AppContainer, Router, ScriptedProvider]:
    """The real container: store with one security, real research/debate/judge, scripted LLM."""
    router = router or Router()
    answer: Callable[[CompletionRequest], str] = router
    provider = ScriptedProvider([answer])
    container = AppContainer(settings)
    populate_store(container.database, SYMBOL)
    if with_news:
        add_news(container)
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    return container, router, provider


class ChartsGateway(ResearchGateway):
    """A research gateway double for the session's chart step: `build_charts` answers or raises as told
    (no store and no experts behind it, so the gateway's own constructor is not run)."""

    def __init__(
        self,
        charts: list[dict[str, Any]] | None = None,
        failed: dict[str, str] | None = None,
        error: Exception | None = None,
    ) -> None:
        self.charts, self.failed, self.error = charts or [], failed or {}, error

    def require_symbol(self, symbol: str) -> str:
        return symbol

    async def run_expert(self, expert: str, symbol: str, as_of: date | None) -> ExpertResult:
        raise NotImplementedError("only the chart step uses this double")

    async def run_expert_rules(self, expert: str, symbol: str, as_of: date | None) -> RulesOnlyResultDTO:
        raise NotImplementedError("only the chart step uses this double")

    async def build_charts(
        self, symbol: str, as_of: date | None
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        if self.error is not None:
            raise self.error
        return self.charts, self.failed


def break_charts(container: AppContainer) -> None:
    """Every research chart of the real pipeline fails (the experts still run)."""

    def broken(*_: Any) -> None:
        raise RuntimeError("chart data unavailable")

    builder = container.research.chart_series_builder
    for name in ("price", "valuation", "financials"):
        setattr(builder, name, broken)


def dead_runner() -> str:
    """A `host:pid` whose process has ended: the liveness record of a runner that died."""
    process = subprocess.Popen(["true"])
    process.wait()
    return f"{socket.gethostname()}:{process.pid}"


def died(database: Database, session_id: str, heartbeat_at: datetime | None = None) -> None:
    """Make a stored `running` session look as a killed process leaves it: its runner is dead."""
    values: dict[str, Any] = {"owner": dead_runner()}
    if heartbeat_at is not None:
        values["heartbeat_at"] = heartbeat_at
    with database.session() as db:
        db.execute(update(ResearchSessionRow).where(ResearchSessionRow.id == session_id).values(**values))
