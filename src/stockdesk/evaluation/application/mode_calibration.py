"""An LLM mode's confidence calibrated on its own past outcomes, walk-forward, at scoring time.

An LLM verdict states an action and a confidence, not a probability. Scored by `evaluate`, each
point of an `experts` or `full` run gets `probability_up` per horizon from the same walk-forward
calibrator as the signal model (research's `calibrate_walk_forward`), fitted on the mode's own
earlier points whose outcomes were known by the point's date (exit plus the embargo): the score is
the signed confidence (+c BUY, -c SELL, 0 HOLD). With fewer than 100 such outcomes the point stays
`uncalibrated` and is left out of the Brier and ECE, which is what a short LLM run honestly gets.
"""

from __future__ import annotations

import pandas as pd

from stockdesk.evaluation.application.scores import signed_confidence
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.research.application import (
    CalibrationSettings,
    ModelCalibration,
    calibrate_walk_forward,
    known_dates,
    trading_calendar,
)

EMBARGO = 2


def calibrate_mode(frame: pd.DataFrame, bars: pd.DataFrame, config: EvaluationConfig) -> pd.DataFrame:
    """`frame` (a scored set: as_of, symbol, action, confidence, exc_<h>, exit_<h>) with its
    `probability_up` and `calibration` columns replaced by the walk-forward calibration."""
    calendar = trading_calendar(bars)
    dates = pd.to_datetime(frame["as_of"])
    scores = pd.DataFrame(
        {"date": dates.to_numpy(), "symbol": frame["symbol"].to_numpy(),
         "score": signed_confidence(frame["action"], frame["confidence"])}
    )  # fmt: skip
    probabilities: list[dict[str, float | None]] = [{} for _ in range(len(frame))]
    calibrations: list[dict[str, object]] = [{} for _ in range(len(frame))]
    for h in config.horizons:
        labels = scores[["date", "symbol"]].assign(
            label=frame[f"exc_{h}"].to_numpy(dtype=float), exit=pd.to_datetime(frame[f"exit_{h}"]).to_numpy()
        )
        settings = CalibrationSettings(hold_band=config.hold_band, overlap=min(1.0, config.every / h))
        known = known_dates(labels, calendar, EMBARGO)
        result = scores.merge(
            calibrate_walk_forward(scores, labels, known, settings), on=["date", "symbol"], how="left"
        )
        for i, row in enumerate(result.itertuples(index=False)):
            p = row.probability_up
            probabilities[i][str(h)] = None if pd.isna(p) else round(float(p), 6)
            calibrations[i][str(h)] = ModelCalibration(
                n=int(row.calibration_n) if pd.notna(row.calibration_n) else 0,
                ece=None
                if row.calibration_ece is None or pd.isna(row.calibration_ece)
                else float(row.calibration_ece),
                fitted_to=None if pd.isna(row.fitted_to) else pd.Timestamp(row.fitted_to).date(),
                base_rate=_number(row.base_rate),
                model="mode",
            ).model_dump(mode="json")
    return frame.assign(probability_up=probabilities, calibration=calibrations)


def _number(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)  # type: ignore[arg-type]
