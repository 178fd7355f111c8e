"""The app the browser tests' uvicorn process serves: API and web UI over a synthetic store.

`python -m uvicorn --factory tests.browser.served_web:create` (cwd: the repository) with
STOCKDESK_HOME set. The store is tests/research/support.py::populate_store's: 300 business days of
bars and valuations ending 2024-06-28 (AS_OF) and eight quarters (2022-06-30 .. 2024-03-31) for
600001.SH (示例银行, 银行) and, for compare/autocomplete pages, 000002.SZ (示例地产, 房地产). The
scripted LLM answers each agent's schema (tests/coordinator/fixtures/scripted_answers.json); the
access policy is the real default one (loopback hosts, keys on the spending routes).
"""

from __future__ import annotations

import os

import pandas as pd
from fastapi import FastAPI

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.api import create_app, default_policy
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from tests.conftest import scripted_service
from tests.coordinator.support import AS_OF, SYMBOL, pipeline
from tests.entrypoints.served_app import answer
from tests.research.support import populate_store

SECOND_SYMBOL = "000002.SZ"
SECOND_NAME = "示例地产"
__all__ = ["AS_OF", "SECOND_NAME", "SECOND_SYMBOL", "SYMBOL", "create"]


def add_second_symbol(container: AppContainer) -> None:
    """The same synthetic history under a second symbol, renamed so the two are told apart."""
    populate_store(container.database, SECOND_SYMBOL)
    security = {
        "symbol": SECOND_SYMBOL, "name": SECOND_NAME, "industry": "房地产", "market": "CN", "exchange": "SZ",
        "currency": "CNY", "list_date": "2001-01-01", "provider_codes": {"tushare": SECOND_SYMBOL},
    }  # fmt: skip
    repository = SqlMarketDataRepository(container.database)
    MarketDataImportService(repository).import_frames("test", {"securities": pd.DataFrame([security])})


def create() -> FastAPI:
    settings = Settings()
    container, _, _ = pipeline(settings)
    add_second_symbol(container)
    provider = ScriptedProvider(
        [answer], latency_seconds=float(os.environ.get("STOCKDESK_TEST_LLM_LATENCY", "0"))
    )
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    return create_app(container, default_policy(settings))
