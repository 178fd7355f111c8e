"""An LLM mode's probability: the LLM's voices as features of the same walk-forward fit, at scoring time.

An LLM verdict states an action and a confidence, not a probability, and whether the LLM adds
anything is a question for the data. Scored by `evaluate`, each point of an `experts` or `full` run
gets `probability_up` per horizon from research's walk-forward model and calibrator, fitted on the
mode's own earlier points whose outcomes were known by the point's date (exit plus the embargo).
The features, ranked per date, are:

- `signal_model`: the rules baseline's calibrated P(up) at that horizon (the factor model; prior
  weight +1, the one feature with published evidence behind it);
- `verdict`: the mode's own verdict as a signed confidence (+c BUY, -c SELL, 0 HOLD; prior 0);
- one feature per LLM expert: its signed stance confidence (bullish +c, bearish -c, neutral 0;
  missing when the expert had no voice; prior 0).

A feature the history does not support keeps a weight of 0, and the report lists each feature's
weight over time and its own rank IC (`metrics.<mode>.<h>.model`): "does the LLM help?" answered by
the points themselves. With fewer than 100 known outcomes a point stays `uncalibrated` and is left
out of the Brier and ECE, which is what a short LLM run honestly gets.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from stockdesk.evaluation.application.scores import signed_confidence, signed_stance
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.research.application import (
    CalibrationSettings,
    FitSettings,
    ModelCalibration,
    calibrate_walk_forward,
    factor_report,
    known_dates,
    rank_normalise,
    trading_calendar,
    walk_forward,
)

EMBARGO = 2
MODEL, VERDICT = "signal_model", "verdict"


def voice_features(frame: pd.DataFrame, baseline: pd.DataFrame, experts: list[str], h: int) -> pd.DataFrame:
    """date, symbol, market and the raw features of every point (see the module docstring)."""
    key = str(h)
    out = pd.DataFrame(
        {
            "date": pd.to_datetime(frame["as_of"]).to_numpy(),
            "symbol": frame["symbol"].to_numpy(),
            "market": "ANY",
            MODEL: [_centred((p or {}).get(key)) for p in baseline["probability_up"]],
            VERDICT: signed_confidence(frame["action"], frame["confidence"]),
        }
    )
    for expert in experts:
        out[expert] = [_voice(v, expert) for v in frame["experts"]]
    return out


def _centred(probability: float | None) -> float:
    return np.nan if probability is None else probability - 0.5


def _voice(voices: Any, expert: str) -> float:
    found = (voices or {}).get(expert)
    if found is None:
        return np.nan
    stance = found.stance if hasattr(found, "stance") else found.get("stance")
    confidence = found.confidence if hasattr(found, "confidence") else found.get("confidence", 0.0)
    return float(signed_stance(pd.Series([stance]), pd.Series([confidence]))[0])


def _prior(market: str, name: str) -> float:
    return 1.0 if name == MODEL else 0.0


def calibrate_mode(
    frame: pd.DataFrame, baseline: pd.DataFrame, bars: pd.DataFrame, config: EvaluationConfig
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """(`frame` with `probability_up` and `calibration` from the combined walk-forward fit, and per
    horizon what it learned). `frame` and `baseline` are the mode's and the rules baseline's scored
    sets on the same points, in the same order."""
    calendar = trading_calendar(bars)
    features = [MODEL, VERDICT, *config.experts]
    probabilities: list[dict[str, float | None]] = [{} for _ in range(len(frame))]
    calibrations: list[dict[str, object]] = [{} for _ in range(len(frame))]
    learned: dict[str, Any] = {}
    for h in config.horizons:
        raw = voice_features(frame, baseline, config.experts, h)
        ranked = rank_normalise(raw, features)
        labels = raw[["date", "symbol"]].assign(
            label=frame[f"exc_{h}"].to_numpy(dtype=float), exit=pd.to_datetime(frame[f"exit_{h}"]).to_numpy()
        )
        settings = FitSettings(horizon=h, embargo=EMBARGO)
        model = walk_forward(ranked, labels, calendar, features, _prior, settings)
        known = known_dates(labels, calendar, EMBARGO)
        overlap = min(1.0, config.every / h)
        calibrated = calibrate_walk_forward(
            model.scores, labels, known, CalibrationSettings(hold_band=config.hold_band, overlap=overlap)
        )
        result = raw[["date", "symbol"]].merge(calibrated, on=["date", "symbol"], how="left")
        fits = [model.fits[pd.Timestamp(d)] for d in result["date"]]
        for i, (row, fit) in enumerate(zip(result.itertuples(index=False), fits, strict=True)):
            p = _number(row.probability_up)
            probabilities[i][str(h)] = None if p is None else round(p, 6)
            calibrations[i][str(h)] = ModelCalibration(
                n=int(row.calibration_n) if pd.notna(row.calibration_n) else 0,
                ece=_number(row.calibration_ece),
                fitted_to=None if pd.isna(row.fitted_to) else pd.Timestamp(row.fitted_to).date(),
                base_rate=_number(row.base_rate),
                model=fit.source,
                pairs=fit.pairs,
            ).model_dump(mode="json")
        learned[str(h)] = factor_report(ranked, labels, model.fits, features, sorted(model.fits))
    return frame.assign(probability_up=probabilities, calibration=calibrations), learned


def _number(value: object) -> float | None:
    return None if value is None or pd.isna(value) else float(value)  # type: ignore[arg-type]
