"""Evidence as the coordinator hands it over (plain dicts) -> JudgeEvidence.

The one place the technical snapshot's field names are read by the judge (close, atr14, swing
levels, 20-day range: research.domain.dtos.technical.TechnicalSnapshotDTO).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from stockdesk.judge.domain.dtos.evidence import (
    CardInput,
    CodeSignalInput,
    JudgeEvidence,
    LessonInput,
    ModelDecision,
)
from stockdesk.judge.domain.dtos.trade_plan import PlanInputs
from stockdesk.judge.domain.exceptions import InvalidDebateOutcomeError
from stockdesk.shared.numbers import finite_number


def _numbers(values: Any) -> list[float]:
    return (
        [v for v in (finite_number(x) for x in values or []) if v is not None]
        if isinstance(values, list)
        else []
    )


def plan_inputs(technical: Mapping[str, Any] | None) -> PlanInputs | None:
    """Prices for the plan; None without a usable close (no history before the date)."""
    if not technical:
        return None
    close = finite_number(technical.get("close"))
    if close is None or close <= 0:
        return None
    return PlanInputs(
        trade_date=str(technical.get("trade_date")) if technical.get("trade_date") else None,
        close=close,
        atr=finite_number(technical.get("atr14")),
        support_levels=_numbers(technical.get("support_levels")),
        resistance_levels=_numbers(technical.get("resistance_levels")),
        low_20d=finite_number(technical.get("low_20d")),
        high_20d=finite_number(technical.get("high_20d")),
    )


def experts_with_data(
    told: Any, signals: Mapping[str, CodeSignalInput], stances: Mapping[str, str]
) -> list[str] | None:
    """As the caller names them; else the code signals that had data; else each stance's expert;
    None when the evidence names no expert at all."""
    if isinstance(told, list):
        return sorted(str(name) for name in told)
    if signals:
        return sorted(name for name, signal in signals.items() if signal.with_data())
    return sorted(stances) if stances else None


def judge_evidence(evidence: Mapping[str, Any] | None) -> JudgeEvidence:
    if not evidence:
        return JudgeEvidence()
    try:
        signals = {
            str(name): CodeSignalInput.model_validate({"expert": name, **dict(signal)})
            for name, signal in (evidence.get("code_signals") or {}).items()
            if isinstance(signal, Mapping)
        }
    except ValidationError as exc:
        raise InvalidDebateOutcomeError(f"evidence.code_signals: {exc.errors()[0]['msg']}") from exc
    stances = {str(k): str(v) for k, v in (evidence.get("stances") or {}).items()}
    experts = experts_with_data(evidence.get("experts_with_data"), signals, stances)
    if experts is not None:  # an expert without data is missing, not a voice
        stances = {k: v for k, v in stances.items() if k in experts}
    technical = evidence.get("technical")
    model = evidence.get("model")
    try:
        lessons = [LessonInput.model_validate(item) for item in evidence.get("lessons") or []]
    except ValidationError as exc:
        raise InvalidDebateOutcomeError(f"evidence.lessons: {exc.errors()[0]['msg']}") from exc
    return JudgeEvidence(
        model=ModelDecision.model_validate(model) if isinstance(model, Mapping) else None,
        experts_with_data=experts,
        stances=stances,
        code_signals=signals,
        prices=plan_inputs(technical if isinstance(technical, Mapping) else None),
        facts=dict(evidence.get("facts") or {}),
        lessons=lessons,
        cards=_cards(evidence.get("cards")),
    )


def _cards(given: Any) -> list[CardInput]:
    try:
        return [CardInput.model_validate(card) for card in given or []]
    except ValidationError as exc:
        raise InvalidDebateOutcomeError(f"evidence.cards: {exc.errors()[0]['msg']}") from exc
