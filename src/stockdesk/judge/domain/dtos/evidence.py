"""What the judge weighs besides the debate: the experts' stances, their code-only signals, prices.

Judge imports no research or coordinator type: the coordinator hands these over as plain values.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from stockdesk.judge.domain.dtos.trade_plan import PlanInputs


class CodeSignalInput(BaseModel):
    expert: str
    stance: str = Field(description="bullish | neutral | bearish")
    score: float = Field(ge=-1.0, le=1.0)
    confidence: float = Field(ge=0.0, le=1.0)
    reasons: list[str] = Field(default_factory=list)
    has_data: bool | None = Field(default=None, description="None: not told; confidence > 0 then says it")

    def with_data(self) -> bool:
        """The expert's snapshot held data (an expert without data is missing, not a voice)."""
        return self.has_data if self.has_data is not None else self.confidence > 0


class ModelDecision(BaseModel):
    """The walk-forward signal model's verdict (research's ModelView, handed over as plain values)."""

    action: str = Field(description="BUY | SELL | HOLD")
    confidence: float = Field(ge=0.0, le=1.0)
    calibrated: bool = False
    horizon: int = 20
    probability_up: dict[str, float | None] = Field(default_factory=dict)
    calibration: dict[str, dict] = Field(default_factory=dict)
    contributions: dict[str, float] = Field(default_factory=dict)
    note: str = Field(default="", description="what the model is and how far its probability holds, in words")
    universe: int = Field(default=0, description="symbols the model ranked the symbol among")


class LessonInput(BaseModel):
    """A past verdict on the symbol and its outcome, known by this verdict's date (the coordinator
    computes it; the judge only words it for the model: reflection)."""

    as_of: str = Field(description="the past verdict's date, ISO")
    action: str = Field(description="BUY | SELL | HOLD")
    probability_up: float | None = Field(default=None, ge=0.0, le=1.0)
    horizon: int = Field(ge=1, description="trading days the outcome was measured over")
    excess_return: float = Field(description="forward excess return over the horizon, a fraction")


class CardInput(BaseModel):
    """An evidence card (research's, handed over as plain values): code's words and direction."""

    id: str
    text_zh: str
    text_en: str = ""
    direction: int = Field(ge=-1, le=1, description="+1 a bull's point, -1 a bear's, 0 neither")


class JudgeEvidence(BaseModel):
    stances: dict[str, str] = Field(
        default_factory=dict, description="each succeeded expert's stance: bullish | neutral | bearish"
    )
    code_signals: dict[str, CodeSignalInput] = Field(default_factory=dict)
    prices: PlanInputs | None = Field(default=None, description="None: no price history, no plan")
    facts: dict = Field(
        default_factory=dict, description="the numbers the judge's text may quote (claim checks)"
    )
    model: ModelDecision | None = Field(default=None, description="None: the signal model could not run")
    experts_with_data: list[str] | None = Field(
        default=None,
        description="the experts whose data the verdict rests on; None: the caller named none (the "
        "judge route with a bare debate outcome), so no evidence count is made",
    )
    lessons: list[LessonInput] = Field(
        default_factory=list, description="past verdicts and their outcomes shown to the model (reflection)"
    )
    cards: list[CardInput] = Field(
        default_factory=list, description="the experts' evidence cards (choices mode picks among them)"
    )
