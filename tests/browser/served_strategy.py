"""The app the strategy-lab browser test serves when a run must find a champion.

`python -m uvicorn --factory tests.browser.served_strategy:create` (cwd: the repository) with
STOCKDESK_HOME set. The store is tests/strategy_lab/support.py's six A-shares with known trends; the
scripted strategist answers one usable parameter set, then text without JSON.
"""

from __future__ import annotations

from fastapi import FastAPI

from stockdesk.entrypoints.api import create_app, default_policy
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from tests.conftest import scripted_service
from tests.strategy_lab.support import answer, populate

UNUSABLE = "I would rather not pick parameters today."


def create() -> FastAPI:
    settings = Settings()
    container = AppContainer(settings)
    populate(container.database)
    provider = ScriptedProvider([answer(), UNUSABLE])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    return create_app(container, default_policy(settings))
