"""`llm ping`: one structured round trip that proves the configured model answers in schema."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from stockdesk.llm_platform.application.llm_service import LLMService
from stockdesk.llm_platform.domain.dtos import LLMResult
from stockdesk.shared.prompts import load_prompts

PING_HEADLINE = "Kweichow Moutai raises its annual dividend by 20% after record profit"


class PingAnswer(BaseModel):
    """Schema the model must fill: a tiny, checkable classification."""

    status: Literal["ok"]
    sentiment: Literal["positive", "neutral", "negative"]
    reason: str = Field(min_length=1, max_length=200)


def run_ping(service: LLMService, *, alias: str | None = None) -> LLMResult:
    prompts = load_prompts(__name__)
    return service.generate(
        prompts.render_user(headline=PING_HEADLINE),
        prompts.system,
        temperature=0.0,
        response_model=PingAnswer,
        alias=alias,
        caller="llm.ping",
        max_tokens=200,
    )
