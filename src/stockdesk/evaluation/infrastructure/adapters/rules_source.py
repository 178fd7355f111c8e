"""Rules mode: research's code-only signals in batch, combined by the judge's rules verdict."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date

from stockdesk.evaluation.domain.dtos import EvaluationMode, ExpertVoice, Verdict
from stockdesk.evaluation.domain.ports import IVerdictSource
from stockdesk.judge.application import JudgeService
from stockdesk.research.application import RulesEvidence, RulesSignalService


class RulesVerdictSource(IVerdictSource):
    mode = EvaluationMode.RULES
    batch_size = 100  # symbols' histories load per batch; a killed run loses at most one batch

    def __init__(self, signals: Callable[[], RulesSignalService], judge: Callable[[], JudgeService]):
        self._signals = signals
        self._judge = judge

    def verdicts(
        self, points: Mapping[str, Sequence[date]], experts: Sequence[str]
    ) -> dict[tuple[str, date], Verdict | Exception]:
        judge = self._judge()
        evidence = self._signals().evidence(points, experts)
        return {
            (symbol, day): self._verdict(judge, symbol, found)
            for symbol, by_day in evidence.items()
            for day, found in by_day.items()
        }

    @staticmethod
    def _verdict(judge: JudgeService, symbol: str, found: RulesEvidence) -> Verdict | Exception:
        if "*" in found.errors:
            return LookupError(found.errors["*"])
        verdict = judge.rules_only(
            symbol,
            {
                "code_signals": found.code_signals,
                "stances": {n: s["stance"] for n, s in found.code_signals.items()},
                "technical": found.technical or {},
            },
        )
        return Verdict(
            action=verdict.action,
            confidence=verdict.confidence,
            position_percent=verdict.position_percent,
            experts={
                n: ExpertVoice(stance=s["stance"], confidence=s["confidence"])
                for n, s in found.code_signals.items()
                if s["confidence"] > 0
            },
        )
