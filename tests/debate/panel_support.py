"""Builders for the panel debate tests: a real SQLite store seeded through data_engineering's importers,
and a scripted model that answers per caller (expert role, moderator, page summary) from the request."""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application import (
    GetDailyBarsUseCase,
    GetFilingPagesUseCase,
    GetFilingsUseCase,
    GetNewsUseCase,
    GetStockBasicInfoUseCase,
)
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.importers.filing_document import read_filing_document
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.debate.application.panel_tools import PanelData
from stockdesk.debate.application.services.panel_debate import PanelDebateService
from stockdesk.debate.infrastructure.agents.sampling import SAMPLING
from stockdesk.debate.infrastructure.panel_factory import build_panel_service, build_panel_tools
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.domain.dtos import CompletionRequest, ToolCall
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider, ScriptedReply
from stockdesk.research.application import ExpertView
from stockdesk.shared.db import Database
from tests.conftest import scripted_service
from tests.research.search_support import news_row as search_news_row

SYMBOL = "XMPL"
AS_OF = date(2024, 3, 1)
TEN_K = "0000054321-23-000101"  # filed 2023-11-03, listed, no document stored
TEN_Q = "0000054321-24-000012"  # filed 2024-02-02: the newest visible filing, 3 pages stored
LATER_Q = "0000054321-24-000044"  # filed 2024-05-03: after AS_OF, must stay invisible
FUTURE_TITLE = "Example Widgets recalls every widget"  # published 2024-03-02 00:30 UTC
LATE_SAME_DAY = "Example Widgets closes at a record"  # published 2024-03-01 23:30 UTC: still visible


def news_row(title: str, url: str, published_at: str, body: str) -> dict[str, Any]:
    return search_news_row(title, url, published_at, body, symbol=SYMBOL)


NEWS = [
    news_row(
        "Example Widgets beats quarterly estimates",
        "https://example.com/news/xmpl-beats",
        "2024-02-01 21:05:00",
        "Example Widgets reported revenue of $1.2 billion, up 12% from a year earlier. " * 12,
    ),
    news_row(
        "Example Widgets opens a new plant in Ohio",
        "https://example.com/news/xmpl-plant",
        "2024-02-20 13:15:00",
        "The new plant doubles spring capacity; the company expects it to run fully by 2025.",
    ),
    news_row(
        "Analysts split on widget demand",
        "https://example.com/news/widget-demand",
        "2024-02-27 09:00:00",
        "Two brokers cut their targets citing slower orders; one raised it on margins.",
    ),
    news_row(LATE_SAME_DAY, "https://example.com/news/xmpl-record", "2024-03-01 23:30:00", "Shares rose 3%."),
    news_row(FUTURE_TITLE, "https://example.com/news/xmpl-recall", "2024-03-02 00:30:00", "A recall."),
]


def bars() -> pd.DataFrame:
    days = pd.bdate_range("2024-01-02", "2024-03-08")
    close = 100.0 + np.arange(len(days), dtype=float)
    close[days > pd.Timestamp(AS_OF)] = 999.0  # after AS_OF: must never reach a prompt
    return pd.DataFrame(
        {
            "symbol": SYMBOL,
            "trade_date": days,
            "open": close - 0.5,
            "high": close + 1.0,
            "low": close - 2.0,
            "close": close,
            "volume": 1_000_000.0,
        }
    )


def filing_html(folder: Path, name: str, sections: int) -> Path:
    """A filing document of `sections` paragraphs of about 1,500 characters each."""
    body = "".join(
        f"<p>Item {i}. Section {i} of the report. {'Widget revenue and margins were discussed. ' * 34}</p>"
        for i in range(sections)
    )
    path = folder / name
    path.write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
    return path


def seed_store(database: Database, folder: Path) -> SqlMarketDataRepository:
    """XMPL with bars, news, three filings (one after AS_OF) and two stored filing documents."""
    repository = SqlMarketDataRepository(database)
    importer = MarketDataImportService(repository)
    security = pd.DataFrame(
        [
            {
                "symbol": SYMBOL,
                "name": "Example Widgets, Inc.",
                "market": "US",
                "currency": "USD",
                "provider_codes": {"sec_cik": "0000054321"},
            }
        ]
    )
    news = pd.DataFrame(NEWS).assign(published_at=lambda f: pd.to_datetime(f["published_at"]))
    filings = pd.DataFrame(
        [
            {"symbol": SYMBOL, "accession_number": TEN_K, "form": "10-K", "filed_date": "2023-11-03"},
            {"symbol": SYMBOL, "accession_number": TEN_Q, "form": "10-Q", "filed_date": "2024-02-02"},
            {"symbol": SYMBOL, "accession_number": LATER_Q, "form": "10-Q", "filed_date": "2024-05-03"},
        ]
    ).assign(filed_date=lambda f: pd.to_datetime(f["filed_date"]))
    importer.import_frames(
        "panel test", {"securities": security, "bars": bars(), "news": news, "filings": filings}
    )
    for accession, name in ((TEN_Q, "q1.htm"), (LATER_Q, "q2.htm")):
        document = read_filing_document(filing_html(folder, name, 30), SYMBOL, accession)
        importer.import_frames(document.group.source, document.group.frames)
    return repository


def scripted_panel(
    script: Callable[[CompletionRequest], str | ScriptedReply],
    repository: SqlMarketDataRepository,
    cache_dir: Path,
    database: Database,
    **options: Any,
) -> tuple[PanelDebateService, LLMService, ScriptedProvider]:
    """The real panel (tools over the store, page index cache) on a scripted model; `options` go
    to build_panel_service (rounds, consensus, tool_limits)."""
    provider = ScriptedProvider([script])
    llm = scripted_service(provider, database=database)
    port = LLMHandle(llm, SAMPLING)
    tools = build_panel_tools(port, panel_data(repository), cache_dir)
    return build_panel_service(port, tools, **options), llm, provider


def panel_data(repository: SqlMarketDataRepository) -> PanelData:
    return PanelData(
        news=GetNewsUseCase(repository),
        bars=GetDailyBarsUseCase(repository),
        filings=GetFilingsUseCase(repository),
        filing_pages=GetFilingPagesUseCase(repository),
        securities=GetStockBasicInfoUseCase(repository),
    )


DIGESTS = [
    ExpertView(
        expert="technical_analyst",
        stance="bullish",
        signal="Bullish",
        confidence=0.66,
        text="Price above the 20-day average",
        risks=["volume fading"],
    ),
    ExpertView(
        expert="valuation_modeler",
        stance="neutral",
        signal="Fair",
        confidence=0.55,
        key_figures={"pe_ttm": 21.4},
    ),
]


# ---- the scripted model -------------------------------------------------------------------------
def turn(action: str, confidence: float, sources: list[Any] | None = None, text: str = "") -> dict[str, Any]:
    answer = {"text": text or f"{action} at {confidence}", "action": action, "confidence": confidence}
    return {**answer, "sources": sources or []}


def decision(kind: str, action: str = "HOLD", confidence: float = 0.6) -> dict[str, Any]:
    return {
        "decision": kind,
        "conclusion": {"text": f"panel says {action}", "action": action, "confidence": confidence},
        "bull_case": {"core_thesis": "revenue up 12%"},
        "bear_case": {"core_thesis": "orders slowing"},
        "risk_matrix": [{"risk": "demand slowdown", "probability": "Medium", "impact": "High"}],
        "key_disagreements": ["how durable the demand is"],
        "conflict_resolution": "growth outweighs the order slowdown for now",
    }


ExpertFn = Callable[[str, int], dict[str, Any]]
ToolsFn = Callable[[str, int], list[ToolCall]]
ModeratorFn = Callable[[int, str], dict[str, Any]]
_ROLE = re.compile(r"角色代号：(\w+)")
_ROUND = re.compile(r"第 (\d+) 轮")
_DONE = re.compile(r"已讨论 (\d+) 轮")
_PAGE = re.compile(r"第 (\d+)/(\d+) 页")


class PanelScript:
    """One scripted-provider entry answering by caller, read from the request's messages.

    Experts are told apart by the role code in their system prompt, the moderator and the page
    summariser by their own system prompts. `barrier` (if given) is awaited by every expert call.
    `tools(role, round)` gives the calls an expert makes first, when tools are offered and it has
    not called any yet in the turn; then it answers with `expert(role, round)`.
    """

    def __init__(
        self,
        expert: ExpertFn = lambda role, rnd: turn("HOLD", 0.5),
        moderator: ModeratorFn = lambda rnd, prompt: decision("end"),
        barrier: threading.Barrier | None = None,
        tools: ToolsFn | None = None,
    ):
        self.expert = expert
        self.moderator = moderator
        self.barrier = barrier
        self.tools = tools
        self.tool_results: list[tuple[str, int, list[dict[str, Any]]]] = []
        self.calls: Counter[str] = Counter()
        self.threads: set[str] = set()
        self.user_prompts: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, request: CompletionRequest) -> str | ScriptedReply:
        system = request.messages[0].content if request.messages[0].role == "system" else ""
        user = next(m.content for m in request.messages if m.role == "user")
        role = _ROLE.search(system)
        kind = role.group(1) if role else "page_summary" if "公告阅读助手" in system else "moderator"
        with self._lock:
            self.calls[kind] += 1
            self.user_prompts.append(user)
            if role:
                self.threads.add(threading.current_thread().name)
        if role:
            if self.barrier is not None:
                self.barrier.wait()  # all four experts of a round must be in flight at once
            rnd = int(_ROUND.search(user).group(1))  # type: ignore[union-attr]
            results = [json.loads(m.content) for m in request.messages if m.role == "tool"]
            if results:
                with self._lock:
                    self.tool_results.append((kind, rnd, results))
            calls = self.tools(kind, rnd) if self.tools and request.tools and not results else []
            if calls:
                return ScriptedReply(tool_calls=calls)
            answer = self.expert(kind, rnd)
        elif kind == "page_summary":
            page = _PAGE.search(user)
            answer = {"summary": f"page {page.group(1)} of {page.group(2)}: widget results"}  # type: ignore[union-attr]
        else:
            answer = self.moderator(int(_DONE.search(user).group(1)), user)  # type: ignore[union-attr]
        return json.dumps(answer, ensure_ascii=False)

    @property
    def expert_calls(self) -> int:
        return sum(n for kind, n in self.calls.items() if kind not in ("moderator", "page_summary"))
