"""LLM modes keep several analyses in flight, up to the model's slots; a failed session is a failed point."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime

from stockdesk.coordinator.application import ResearchRequest, ResearchSession
from stockdesk.evaluation.domain.dtos import EvaluationMode, Verdict
from stockdesk.evaluation.infrastructure.adapters.coordinator_source import (
    CoordinatorVerdictSource,
    NoVerdictError,
)

DIGEST = {"expert": "technical_analyst", "signal": "Bullish", "confidence": 0.7}


class SlowCoordinator:
    """Each session takes a moment; counts how many run at the same time."""

    def __init__(self) -> None:
        self.running = self.most = 0

    async def arun(self, request: ResearchRequest) -> ResearchSession:
        self.running += 1
        self.most = max(self.most, self.running)
        await asyncio.sleep(0.05)
        self.running -= 1
        verdict = {} if request.as_of == date(2024, 1, 3) else {"action": "BUY", "confidence": 0.6}
        return ResearchSession(
            id=f"s-{request.symbol}-{request.as_of}",
            symbol=request.symbol,
            as_of=request.as_of,
            experts=request.experts,
            started_at=datetime.now(UTC),
            verdict=verdict,
            aggregation={"stances": {"technical_analyst": "bullish"}, "digests": [DIGEST]},
        )


def test_sessions_run_up_to_the_slots_at_once_and_a_missing_verdict_fails_its_point() -> None:
    coordinator = SlowCoordinator()
    source = CoordinatorVerdictSource(lambda: coordinator, EvaluationMode.FULL, slots=2)  # type: ignore[arg-type,return-value]
    days = [date(2024, 1, 2), date(2024, 1, 3), date(2024, 1, 4), date(2024, 1, 5)]
    found = source.verdicts({"AAA.SH": days}, ["technical_analyst"])
    assert coordinator.most == 2 and source.batch_size == 2
    assert isinstance(found[("AAA.SH", date(2024, 1, 3))], NoVerdictError)
    good = found[("AAA.SH", date(2024, 1, 2))]
    assert isinstance(good, Verdict) and good.session_id == "s-AAA.SH-2024-01-02"
    assert good.experts["technical_analyst"].stance == "bullish"
