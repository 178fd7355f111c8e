"""One horizon's scorecard: action stats, hit rate, rank IC and calibration of the desk's verdicts.

Definition (the contract): `points` has one row per (symbol, as_of) verdict with columns
`as_of`, `symbol`, `action` (BUY/SELL/HOLD), `confidence` in [0, 1], `forward_return` and
`excess_return` (fractions) for one horizon.

* Points whose forward return is missing are left out of everything and counted in `missing`
  (the horizon has not elapsed yet, or the price is unknown).
* `actions`: `action_stats` per action; `hit_rate`: share of all kept verdicts that hit
  (`hit_flags`, HOLD within `hold_band`); `mean_excess`: mean finite excess return.
* `rank_ic`: per-date Spearman of the signed confidence (+c BUY, -c SELL, 0 HOLD) against the
  excess return.
* `calibration`: the points' `probability` column when present (a calibrated P(excess > 0); NaN =
  uncalibrated, left out and counted in `uncalibrated`), else `probability_up` (BUY c, SELL 1-c,
  HOLD 0.5), against excess return > 0, over the kept points whose excess return is finite. With a
  probability column the rank IC ranks the probability instead of the signed confidence.
* `brier_skill_walk_forward`: 1 - Brier / mean((b - o)^2) over the same points, where b is the
  point's `base_rate` column (the share of positive outcomes known at its date); None without it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stockdesk.evaluation.application.scores._common import action_array, float_array, mean_or_none, share
from stockdesk.evaluation.application.scores.actions import (
    DEFAULT_HOLD_BAND,
    action_stats,
    hit_flags,
    signed_confidence,
)
from stockdesk.evaluation.application.scores.calibration import calibration, probability_up
from stockdesk.evaluation.application.scores.rank_ic import rank_ic
from stockdesk.evaluation.domain.metrics import HorizonMetrics

SUMMARY_COLUMNS: tuple[str, ...] = (
    "as_of",
    "symbol",
    "action",
    "confidence",
    "forward_return",
    "excess_return",
)


def summarise(
    points: pd.DataFrame, hold_band: float = DEFAULT_HOLD_BAND, min_symbols: int = 5, buckets: int = 5
) -> HorizonMetrics:
    """Score one horizon's points (see the module docstring for every definition)."""
    missing = [c for c in SUMMARY_COLUMNS if c not in points.columns]
    if missing:
        raise ValueError(f"points lack columns {missing}")
    forward = float_array(points["forward_return"])
    known = np.isfinite(forward)
    kept = points[known]
    actions = action_array(kept["action"])
    forward = forward[known]
    excess = float_array(kept["excess_return"])
    confidence = float_array(kept["confidence"])
    with_excess = np.isfinite(excess)
    if "probability" in kept:
        prob = float_array(kept["probability"])
        signal = prob - 0.5
    else:
        prob = probability_up(actions, confidence)
        signal = signed_confidence(actions, confidence)
    scored = with_excess & np.isfinite(prob)
    outcome = (excess[scored] > 0).astype(float)
    return HorizonMetrics(
        count=len(kept),
        missing=int((~known).sum()),
        actions=action_stats(actions, forward, excess, hold_band),
        hit_rate=share(hit_flags(actions, forward, hold_band)),
        mean_excess=mean_or_none(excess),
        rank_ic=rank_ic(kept["as_of"], signal, excess, min_symbols),
        calibration=calibration(prob[scored], outcome, buckets),
        brier_skill_walk_forward=walk_forward_skill(
            prob[scored], outcome, float_array(kept["base_rate"])[scored] if "base_rate" in kept else None
        ),
        uncalibrated=int((with_excess & ~np.isfinite(prob)).sum()),
    )


def walk_forward_skill(prob: np.ndarray, outcome: np.ndarray, base: np.ndarray | None) -> float | None:
    """1 - Brier(prob) / Brier(base) over the points whose base rate is known (None if none)."""
    if base is None:
        return None
    known = np.isfinite(base)
    if not known.any():
        return None
    reference = float(np.mean((base[known] - outcome[known]) ** 2))
    if reference == 0:
        return None
    return 1.0 - float(np.mean((prob[known] - outcome[known]) ** 2)) / reference
