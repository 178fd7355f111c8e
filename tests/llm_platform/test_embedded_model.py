"""Integration with the real embedded model (llama.cpp via xllamacpp, pinned Qwen2.5-Coder 1.5B)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Literal

import pytest
from pydantic import BaseModel, Field

from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.application.ping import PingAnswer, run_ping
from stockdesk.llm_platform.container import build_llm_service
from stockdesk.llm_platform.infrastructure.embedded.model_files import QWEN_CODER_1_5B
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database

pytestmark = pytest.mark.slow


class Headline(BaseModel):
    sentiment: Literal["positive", "neutral", "negative"]
    keywords: list[str] = Field(max_length=3)


@pytest.fixture
def local_service(settings: Settings, database: Database) -> Iterator[LLMService]:
    service = build_llm_service(settings, database)
    yield service
    service.close()


def test_embedded_model_returns_a_schema_valid_object(
    local_service: LLMService, database: Database, settings: Settings
) -> None:
    with local_service.run_scope("embedded-it"):
        result = run_ping(local_service)
    assert isinstance(result.parsed, PingAnswer)
    assert result.provider == "local" and result.model.startswith("qwen2.5-coder-1.5b")
    assert result.usage.prompt_tokens > 20 and result.usage.completion_tokens > 3
    model_file = settings.models_dir / QWEN_CODER_1_5B.file_name
    assert model_file.stat().st_size == QWEN_CODER_1_5B.size_bytes
    audit = SqlLLMStore(database).list_for_run("embedded-it")
    assert [r.status for r in audit][-1] == "ok" and audit[-1].caller == "llm.ping"


def test_parallel_callers_queue_for_the_single_slot_and_all_succeed(local_service: LLMService) -> None:
    answers: list[Headline] = []
    errors: list[BaseException] = []
    headlines = ["Apple beats earnings estimates", "Bank fined for misconduct", "Factory output flat"]

    def ask(headline: str) -> None:
        try:
            result = local_service.generate(
                f"Classify this headline and give up to 3 keywords: {headline}",
                "Answer with JSON only.",
                response_model=Headline,
                temperature=0.0,
                max_tokens=120,
                timeout_seconds=120,
            )
            answers.append(result.parsed)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(h,)) for h in headlines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert errors == []
    assert len(answers) == 3 and all(isinstance(a, Headline) for a in answers)
