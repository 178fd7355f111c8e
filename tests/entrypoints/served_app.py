"""The app a real uvicorn process serves in the server tests: sample store, scripted LLM, real policy.

`python -m uvicorn --factory tests.entrypoints.served_app:create` (cwd: the repository) with
STOCKDESK_HOME set; STOCKDESK_TEST_LLM_LATENCY slows every model answer down (seconds) so that a
strategy run is still going when the test stops the server.
"""

from __future__ import annotations

import json
import os

from fastapi import FastAPI

from stockdesk.entrypoints.api import create_app, default_policy
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from tests.conftest import scripted_service
from tests.coordinator.support import ANSWERS, pipeline


def answer(request: CompletionRequest) -> str:
    """Each agent's schema-valid answer; anything else (strategist, briefing) gets unusable text."""
    found = ANSWERS.get(request.schema_name)
    return json.dumps(found, ensure_ascii=False) if found is not None else "no answer for this schema"


def create() -> FastAPI:
    settings = Settings()
    container, _, _ = pipeline(settings)
    provider = ScriptedProvider(
        [answer], latency_seconds=float(os.environ.get("STOCKDESK_TEST_LLM_LATENCY", "0"))
    )
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    return create_app(container, default_policy(settings))
