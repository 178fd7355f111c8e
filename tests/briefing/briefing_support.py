"""Builders for the briefing tests: a real SQLite store with four tickers, the real panel over it, and a
scripted model that answers the briefing's worker and refiner and hands every other call (experts,
moderator, page summaries) to the panel tests' PanelScript.

- XMPL: the panel tests' store (bars, news, filings) as of AS_OF (2024-03-01);
- YMPL, ZMPL: bars and one news item each up to AS_OF;
- AAPL: daily bars in July 2024 and the real 5-minute yfinance fixture of 2024-07-26 (21 bars).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.briefing.application import BriefingService
from stockdesk.briefing.infrastructure.factory import build_briefing_service
from stockdesk.data_engineering.application import GetIntradayBarsUseCase
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.application.intraday_import import IntradayImportService
from stockdesk.data_engineering.infrastructure.importers.intraday_csv import read_intraday_csv
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.debate.application.panel_tools import PanelData
from stockdesk.debate.infrastructure.agents.sampling import SAMPLING
from stockdesk.debate.infrastructure.panel_factory import build_panel_service, build_panel_tools
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider, ScriptedReply
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.conftest import scripted_service
from tests.debate.panel_support import AS_OF, PanelScript, panel_data, seed_store
from tests.research.search_support import news_row

TICKERS = ["XMPL", "YMPL", "ZMPL"]
AAPL_DAY = date(2024, 7, 26)
INTRADAY_CSV = (
    Path(__file__).parents[1] / "data_engineering" / "fixtures" / "intraday" / "AAPL_5m_yfinance.csv"
)
WORKER_MARK = "script writer of a daily stock podcast"
REFINER_MARK = "script editor of a daily stock podcast"
_STOCK = re.compile(r"Stock: (\S+) \(")


def _bars(symbol: str, start: str, end: str, first_close: float) -> pd.DataFrame:
    days = pd.bdate_range(start, end)
    close = first_close + np.arange(len(days), dtype=float)
    return pd.DataFrame(
        {
            "symbol": symbol, "trade_date": days, "open": close - 0.5, "high": close + 1.0,
            "low": close - 2.0, "close": close, "volume": 2_000_000.0,
        }
    )  # fmt: skip


def _security(symbol: str, name: str) -> dict[str, Any]:
    return {"symbol": symbol, "name": name, "market": "US", "currency": "USD", "provider_codes": {}}


def seed_briefing_store(database: Database, folder: Path) -> SqlMarketDataRepository:
    repository = seed_store(database, folder)  # XMPL
    importer = MarketDataImportService(repository)
    for symbol, first in (("YMPL", 50.0), ("ZMPL", 20.0)):
        news = pd.DataFrame(
            [
                news_row(
                    f"{symbol} widens its margin",
                    f"https://example.com/news/{symbol.lower()}-margin",
                    "2024-02-21 14:00:00",
                    f"{symbol} said its gross margin rose to 41.5% in the quarter.",
                    symbol=symbol,
                )
            ]
        ).assign(published_at=lambda f: pd.to_datetime(f["published_at"]))
        frames = {
            "securities": pd.DataFrame([_security(symbol, f"{symbol} Corp.")]),
            "bars": _bars(symbol, "2024-01-02", "2024-03-08", first),
            "news": news,
        }
        importer.import_frames(f"briefing test {symbol}", frames)
    importer.import_frames(
        "briefing test AAPL",
        {
            "securities": pd.DataFrame([_security("AAPL", "Apple Inc.")]),
            "bars": _bars("AAPL", "2024-06-03", "2024-07-31", 190.0),
        },
    )
    IntradayImportService(SqlMarketDataRepository(database)).import_file(
        read_intraday_csv(INTRADAY_CSV, "AAPL")
    )
    return repository


def briefing_panel_data(repository: SqlMarketDataRepository, database: Database) -> PanelData:
    base = panel_data(repository)
    return PanelData(
        news=base.news,
        bars=base.bars,
        filings=base.filings,
        filing_pages=base.filing_pages,
        securities=base.securities,
        intraday=GetIntradayBarsUseCase(SqlMarketDataRepository(database)),
    )


# ---- the scripted model ---------------------------------------------------------------------------
WorkerFn = Callable[[str, str], Any]  # (ticker, user prompt) -> the answer (dict, or raw text)
RefinerFn = Callable[[str], Any]  # (user prompt) -> the answer


def plain_worker(ticker: str, prompt: str) -> dict[str, Any]:
    """Four turns whose only numbers (0.5, 0.6) are in the default panel's debate JSON."""
    return {
        "ticker": ticker,
        "scripts": [
            {"id": 0, "speaker": "host", "text": f"Now to {ticker}. What did the panel say?", "sources": []},
            {"id": 1, "speaker": "analyst", "text": "Every expert said HOLD at 0.5.", "sources": []},
            {"id": 2, "speaker": "host", "text": "And the conclusion?", "sources": []},
            {"id": 3, "speaker": "analyst", "text": "HOLD, with a confidence of 0.6.", "sources": []},
        ],
    }


class BriefingModel:
    """One scripted-provider entry: worker and refiner calls answered here, every other call by `panel`.

    `hold[ticker]` (an Event) makes that ticker's panel calls wait until it is set; `release_on` sets
    the event when the named ticker's worker call arrives. `fail_panel_for` answers that ticker's
    panel calls with text that is not JSON, so its debate fails.
    """

    def __init__(
        self,
        panel: PanelScript | None = None,
        worker: WorkerFn = plain_worker,
        refiner: RefinerFn = lambda prompt: {"edits": []},
        *,
        hold: dict[str, threading.Event] | None = None,
        release_on: dict[str, threading.Event] | None = None,
        fail_panel_for: str | None = None,
    ):
        self.panel = panel or PanelScript()
        self.worker = worker
        self.refiner = refiner
        self.hold = hold or {}
        self.release_on = release_on or {}
        self.fail_panel_for = fail_panel_for
        self.worker_prompts: dict[str, str] = {}
        self.worker_order: list[str] = []
        self.refiner_prompts: list[str] = []
        self.panel_calls = 0
        self._lock = threading.Lock()

    def __call__(self, request: CompletionRequest) -> str | ScriptedReply:
        system = request.messages[0].content if request.messages[0].role == "system" else ""
        user = next(m.content for m in request.messages if m.role == "user")
        if WORKER_MARK in system:
            ticker = _STOCK.search(user).group(1)  # type: ignore[union-attr]
            with self._lock:
                self.worker_prompts[ticker] = user
                self.worker_order.append(ticker)
            if ticker in self.release_on:
                self.release_on[ticker].set()
            return _text(self.worker(ticker, user))
        if REFINER_MARK in system:
            with self._lock:
                self.refiner_prompts.append(user)
            return _text(self.refiner(user))
        with self._lock:
            self.panel_calls += 1
        for ticker, event in self.hold.items():
            if ticker in user:
                assert event.wait(timeout=60), f"{ticker}'s debate was never released"
        if self.fail_panel_for and self.fail_panel_for in user:
            return "the panel cannot answer"
        return self.panel(request)

    @property
    def llm_calls(self) -> int:
        return self.panel_calls + len(self.worker_order) + len(self.refiner_prompts)


def _text(answer: Any) -> str:
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


def llm_over(model: BriefingModel, database: Database | None = None) -> LLMService:
    return scripted_service(ScriptedProvider([model]), database=database)


def briefing_service(
    model: BriefingModel,
    repository: SqlMarketDataRepository,
    settings: Settings,
    database: Database,
    *,
    slots: int = 2,
    llm: LLMService | None = None,
) -> BriefingService:
    """The real panel (no expert tools), its store tools and the briefing agents, all over `model`
    (through `llm` when given, e.g. to read its run's token count)."""
    port = LLMHandle(llm or llm_over(model, database), SAMPLING)
    tools = build_panel_tools(port, briefing_panel_data(repository, database), settings.cache_dir)
    return build_briefing_service(
        build_panel_service(port, tools),
        tools,
        port,
        panel_with_rounds=lambda rounds: build_panel_service(port, tools, max_rounds=rounds),
        slots=slots,
    )


def base_script(day: str = AS_OF.strftime("%Y%m%d"), *, closing: bool = False) -> dict[str, Any]:
    """Opening (0-1) and theme (2-3) [+ closing (4-5)]; the theme cites an article of its own."""
    turns = [
        ("host", "Good morning, this is the daily desk."),
        ("analyst", "Markets opened mixed today."),
        ("host", "Today's theme is margins."),
        ("analyst", "Gross margins rose 41.5% at one maker."),
        ("host", "That is all for today."),
        ("analyst", "See you tomorrow."),
    ]
    count = 6 if closing else 4
    scripts = [{"id": i, "speaker": s, "text": t, "sources": []} for i, (s, t) in enumerate(turns[:count])]
    scripts[3]["sources"] = [{"type": "article", "pk": "id#THEME:000000000001", "title": "Margins widen"}]
    chapters = [
        {"name": "opening", "start_id": 0, "end_id": 1},
        {"name": "theme", "start_id": 2, "end_id": 3},
    ]
    if closing:
        chapters.append({"name": "closing", "start_id": 4, "end_id": 5})
    return {"date": day, "chapter": chapters, "scripts": scripts}
