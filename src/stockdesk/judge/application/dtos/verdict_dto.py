"""VerdictDTO (the verdict of judge-design.md, Decision 4) plus the computed trade plan, what code
changed, and the audit trail.

entry_strategy / stop_loss / take_profit keep the spec's text fields, now written by code from
`trade_plan`; `adjustments` lists every change code made to the model's answer.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from stockdesk.judge.domain.dtos.adjustment import Adjustment
from stockdesk.judge.domain.dtos.evidence import LessonInput
from stockdesk.judge.domain.dtos.holding import HolderPlan, Holding
from stockdesk.judge.domain.dtos.trade_plan import TradePlan


class VerdictDTO(BaseModel):
    symbol: str
    action: str = Field(description="BUY | SELL | HOLD")
    position_percent: float = Field(ge=0.0, le=1.0)
    confidence: float = Field(ge=0.0, le=1.0)
    entry_strategy: str
    stop_loss: str
    take_profit: str
    time_horizon: str
    risk_warnings: list[str]
    reasoning: str
    source: str = Field(default="llm", description="llm | rules (the code-only verdict)")
    trade_plan: TradePlan | None = Field(default=None, description="None only without any price history")
    adjustments: list[Adjustment] = Field(default_factory=list)
    support: dict[str, Any] = Field(
        default_factory=dict, description="voices pointing the action's way and the confidence cap"
    )
    rules_verdict: dict[str, Any] = Field(
        default_factory=dict, description="the code-only verdict beside it: action, confidence, signals"
    )
    stability: dict[str, Any] | None = Field(
        default=None, description="--samples N: the actions of N seeded judge runs and how many agree"
    )
    claim_checks: dict[str, Any] = Field(default_factory=dict, description="violations found and dropped")
    choices: dict[str, Any] = Field(
        default_factory=dict,
        description="choices mode: the card ids picked, what was refused, the texts in English",
    )
    rules_applied: list[str] = Field(
        default_factory=list, description="names of the rules that changed the model's answer"
    )
    evidence: Literal["sufficient", "insufficient"] = Field(
        default="sufficient",
        description="insufficient: fewer than two experts had data; then HOLD, confidence 0 (no "
        "confidence, not a probability), no position, no trade plan, and no LLM call",
    )
    evidence_reason: str = Field(default="", description="why the evidence is insufficient, in words")
    experts_with_data: list[str] | None = Field(
        default=None, description="the experts whose data the verdict rests on (None: not counted)"
    )
    probability_up: dict[str, float | None] = Field(
        default_factory=dict,
        description="horizon -> calibrated P(excess return > 0) of this verdict's mode; empty: uncalibrated",
    )
    calibration: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="per horizon: n, ece, fitted_to, base_rate, model, pairs"
    )
    calibrated: bool = Field(
        default=False, description="False: too few past outcomes of this mode; confidence then at most 0.6"
    )
    signal_model: dict[str, Any] | None = Field(
        default=None,
        description="the walk-forward signal model's view: action, probability_up, contributions",
    )
    lessons: list[LessonInput] = Field(
        default_factory=list, description="past verdicts and outcomes the judge was shown (reflection)"
    )
    i18n: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="language -> the code-worded fields (entry_strategy, stop_loss, take_profit, "
        "time_horizon; reasoning, risk_warnings and evidence_reason when code wrote them) in that "
        "language (shared.wording); the fields above keep the text the prompts read",
    )
    holding: Holding | None = Field(
        default=None, description="the user's position in the symbol on the date; None: not held"
    )
    holder_plan: HolderPlan | None = Field(
        default=None,
        description="the verdict for a holder (ADD/HOLD/TRIM/EXIT, shares in lots, stop, costs); "
        "None for a non-holder. `action` above stays BUY/HOLD/SELL",
    )
    input: str = Field(default="", description="the prompt sent to the model")
    output: str = Field(default="", description="the model's raw answer")
