"""The app the batch browser test serves: tests/browser/served_web.py's store (600001.SH, 000002.SZ)
and scripted LLM, with batch analyses run on threads of the server process instead of Ray.

`python -m uvicorn --factory tests.browser.served_batches:create` (cwd: the repository) with
STOCKDESK_HOME set. Each batch worker builds its container from the same settings (the same SQLite
file) with the scripted answers by schema (tests/coordinator/support.py's Router).
"""

from __future__ import annotations

from dataclasses import replace

from fastapi import FastAPI

from stockdesk.entrypoints.api import create_app, default_policy
from stockdesk.entrypoints.batch.analyze_work import AnalyzeSymbolsWork
from stockdesk.entrypoints.batch.launcher import server_batch_launcher
from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.tasks import ThreadEngine
from tests.browser.served_web import add_second_symbol
from tests.conftest import scripted_service
from tests.coordinator.support import Router, pipeline

WORKERS = 2


def worker_llm(settings: Settings, database: Database) -> LLMService:
    """Each batch worker's LLM: the scripted answers by schema."""
    return scripted_service(ScriptedProvider([Router()]), database=database)


def create() -> FastAPI:
    settings = Settings()
    container, _, _ = pipeline(settings)
    add_second_symbol(container)
    batches = replace(
        server_batch_launcher(container),
        make_work=lambda config: AnalyzeSymbolsWork(settings, config, llm=worker_llm, distributed=False),
        make_engine=lambda: ThreadEngine(WORKERS),
    )
    return create_app(container, default_policy(settings), batches)
