"""DebateOutcomeDTO: the outcome both modes produce, plus how it was reached (mode, audit, artifact)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from stockdesk.debate.domain.dtos.outcome import DebateOutcome


class DebateOutcomeDTO(DebateOutcome):
    mode: str = Field(description="bull-bear | panel")
    experts_considered: list[str] = Field(default_factory=list, description="experts whose digest was used")
    artifact: dict[str, Any] | None = Field(default=None, description="the panel's debate JSON (panel only)")
    audit: list[dict[str, Any]] = Field(
        default_factory=list, description="one row per LLM call: agent, input, output, tokens"
    )
    dropped_sources: int = Field(default=0, description="panel: cited sources not in the allowed list")
    claim_checks: dict[str, Any] = Field(
        default_factory=dict,
        description="bull-bear: per agent, the claim violations found, whether a repair was asked, "
        "what still violated after it and what was dropped",
    )
    choices: dict[str, Any] = Field(
        default_factory=dict,
        description="choices mode: the card ids each agent picked (after the direction checks), what "
        "was refused, and the same sentences in English; empty in prose mode",
    )
