"""The signal model in the verdict: what the rules verdict takes from it and what every verdict shows.

- Rules verdict (`--rules-only`, the fallback, evaluate's baseline): its action and confidence are
  the walk-forward model's (the code-only composite below is kept only as the fallback when the
  model could not run). A calibrated confidence is the probability the action is right and is shown
  as is; an uncalibrated one stays within the evidence bound and at most UNCALIBRATED_CAP.
- LLM verdicts (experts, full): this mode has no calibration of its own yet (its past outcomes are
  in the ledger, too few to fit on), so the verdict is `uncalibrated`, shows no probability of its
  own, and its confidence is capped at UNCALIBRATED_CAP (an adjustment says so). The model's view is
  shown beside it (`signal_model`).
"""

from __future__ import annotations

from typing import Any

from stockdesk.judge.application.services.verdict_words import model_reasoning_in, said
from stockdesk.judge.domain.dtos.adjustment import Adjustment
from stockdesk.judge.domain.dtos.evidence import ModelDecision
from stockdesk.judge.domain.model.enums import ActionDirection

UNCALIBRATED_CAP = 0.6


def model_decision(
    model: ModelDecision, cap: float, adjustments: list[Adjustment]
) -> tuple[ActionDirection, float]:
    """The rules verdict's action and confidence from the model. The agreement bound `cap` holds
    for it as for every verdict: a calibrated probability above it is cut to it, and the cut is an
    adjustment that keeps the calibrated figure in words (`probability_up` itself is unchanged)."""
    stated = model.confidence if model.calibrated else min(UNCALIBRATED_CAP, model.confidence)
    confidence = int(min(stated, cap) * 10000 + 1e-9) / 10000
    if stated > cap:
        kind = said("verdict.kind.calibrated" if model.calibrated else "verdict.kind.uncalibrated")
        why = said(
            "verdict.adjust.model_capped", stated=f"{stated:.2f}", after=f"{confidence:.2f}", kind=kind
        )
        adjustments.append(Adjustment.worded("confidence", round(stated, 4), confidence, why))
    return ActionDirection(model.action), confidence


def model_fields(model: ModelDecision | None, *, own: bool) -> dict[str, Any]:
    """VerdictDTO fields: the model's probability as the verdict's own (`own`: the rules verdict)
    when calibrated; the model's view beside any verdict."""
    if model is None:
        return {"calibrated": False, "signal_model": None}
    mine = own and model.calibrated
    return {
        "probability_up": dict(model.probability_up) if mine else {},
        "calibration": dict(model.calibration) if mine else {},
        "calibrated": mine,
        "signal_model": model.model_dump(mode="json"),
    }


def capped_uncalibrated(confidence: float, adjustments: list[Adjustment]) -> float:
    """An LLM verdict's confidence at most UNCALIBRATED_CAP, the cut recorded."""
    if confidence <= UNCALIBRATED_CAP:
        return confidence
    why = said("verdict.adjust.uncalibrated", cap=f"{UNCALIBRATED_CAP:.2f}")
    adjustments.append(Adjustment.worded("confidence", confidence, UNCALIBRATED_CAP, why))
    return UNCALIBRATED_CAP


def model_reasoning(model: ModelDecision) -> str:
    """The rules verdict's reasoning, worded by code from the model's numbers (English; the verdict
    stores it in every language, verdict_words.model_reasoning_in)."""
    return model_reasoning_in(model, "en")
