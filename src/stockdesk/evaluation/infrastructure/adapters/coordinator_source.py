"""Experts and full modes: one research session per point through the coordinator.

Each point is a recorded session (its id in the point), so every verdict keeps its audit trail.
Experts mode asks the coordinator for `verdict_by_rules` (LLM experts, the rules combine their own
stances, no debate); full mode runs the whole pipeline. Evaluation points are not appended to the
verdict ledger (`record_verdict=False`): they are replays scored by evaluate, not the desk's verdicts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from stockdesk.coordinator.application import ResearchCoordinatorService, ResearchRequest, ResearchSession
from stockdesk.evaluation.domain.dtos import EvaluationMode, ExpertVoice, Verdict
from stockdesk.evaluation.domain.ports import IVerdictSource, LessonLookup
from stockdesk.shared.tasks.cancel import JobCancelled


class NoVerdictError(RuntimeError):
    """The session finished without a verdict (every expert failed, or the judge did)."""


class CoordinatorVerdictSource(IVerdictSource):
    """Runs up to `slots` sessions at once (the model's parallel slots): throughput is the LLM's."""

    def __init__(
        self, service: Callable[[], ResearchCoordinatorService], mode: EvaluationMode, slots: int = 1
    ):
        self._service = service
        self.mode = mode
        self.batch_size = max(1, slots)
        self._lessons: LessonLookup | None = None

    def use_lessons(self, lookup: LessonLookup) -> None:
        self._lessons = lookup

    def verdicts(
        self, points: Mapping[str, Sequence[date]], experts: Sequence[str]
    ) -> dict[tuple[str, date], Verdict | Exception]:
        return asyncio.run(self._all(points, experts))

    async def _all(
        self, points: Mapping[str, Sequence[date]], experts: Sequence[str]
    ) -> dict[tuple[str, date], Verdict | Exception]:
        service = self._service()
        gate = asyncio.Semaphore(self.batch_size)
        keys = [(symbol, day) for symbol, days in points.items() for day in days]

        async def one(symbol: str, day: date) -> Verdict | Exception:
            request = ResearchRequest(
                symbol=symbol,
                as_of=day,
                experts=list(experts),
                verdict_by_rules=self.mode is EvaluationMode.EXPERTS,
                record_verdict=False,  # an evaluation point is scored here, not a ledger entry
                ignore_holdings=True,  # the user's holdings today must not change a past point's prompt
                reflection=self._lessons is not None,
                lessons=self._lessons(symbol, day) if self._lessons is not None else None,
            )
            async with gate:
                try:
                    return self._verdict(await service.arun(request))
                except JobCancelled:
                    raise  # the job stops: its unfinished points stay pending, not failed
                except Exception as exc:  # recorded on the task, retried, then reported
                    return exc

        found = await asyncio.gather(*(one(s, d) for s, d in keys))
        return dict(zip(keys, found, strict=True))

    @staticmethod
    def _verdict(session: ResearchSession) -> Verdict:
        verdict: dict[str, Any] = session.verdict or {}
        if not verdict.get("action"):
            reasons = {**session.expert_errors, **session.errors}
            raise NoVerdictError(f"session {session.id} has no verdict: {reasons or session.status}")
        digests = (session.aggregation or {}).get("digests") or []
        stances = (session.aggregation or {}).get("stances") or {}  # experts with data only
        return Verdict(
            action=verdict["action"],
            confidence=float(verdict.get("confidence", 0.0)),
            evidence=str(verdict.get("evidence") or "sufficient"),
            position_percent=float(verdict.get("position_percent", 0.0)),
            session_id=session.id,
            experts={
                d["expert"]: ExpertVoice(
                    stance=stances.get(d["expert"], "neutral"), confidence=float(d["confidence"])
                )
                for d in digests
                if d["expert"] in stances  # an expert without data is no voice
            },
            llm_calls=session.llm_calls,
            tokens=session.tokens,
        )
