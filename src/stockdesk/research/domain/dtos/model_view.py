"""What the walk-forward signal model says about one symbol on one date, as every context reads it."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field


class ModelCalibration(BaseModel):
    """How a probability was calibrated: on `n` past outcomes known by the verdict's date."""

    n: int = Field(description="past outcomes the calibration was fitted on")
    ece: float | None = Field(default=None, description="ECE of this calibrator's own earlier probabilities")
    fitted_to: date | None = Field(default=None, description="the newest outcome date it used")
    base_rate: float | None = Field(
        default=None, description="share of positive excess returns known by then (walk-forward base rate)"
    )
    model: str = Field(default="prior", description="prior | fitted: what scored the point")
    pairs: int = Field(default=0, description="labelled (symbol, date) pairs the model was fitted on")


class ModelView(BaseModel):
    """The model's verdict at `as_of` (the last trading day by the asked date)."""

    symbol: str
    as_of: date
    horizon: int = Field(
        description="the verdict horizon in trading days (what action and confidence refer to)"
    )
    action: str = Field(description="BUY | SELL | HOLD")
    confidence: float = Field(description="calibrated P(the action is right); at most 0.6 when uncalibrated")
    calibrated: bool
    probability_up: dict[str, float | None] = Field(
        description="horizon -> P(excess return > 0); None uncalibrated"
    )
    calibration: dict[str, ModelCalibration]
    contributions: dict[str, float] = Field(description="expert -> its factors' part of the score")
    universe: int = Field(description="symbols the model ranked the symbol among")

    def words(self) -> str:
        """One line: what the model is and how far its probability can be trusted."""
        cal = self.calibration.get(str(self.horizon))
        if cal is None:
            return "signal model: no data"
        fitted = (
            f"fitted on {cal.pairs} pairs to {cal.fitted_to}" if cal.model == "fitted" else "prior weights"
        )
        if not self.calibrated:
            return f"signal model ({fitted}): uncalibrated, {cal.n} past outcomes"
        return f"signal model ({fitted}): calibrated on {cal.n} past outcomes to {cal.fitted_to}"
