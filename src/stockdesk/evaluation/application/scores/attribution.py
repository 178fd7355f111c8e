"""Per-expert attribution: which experts' stances carried information, and which were noise.

Definitions (the contract), per expert, over its points with a finite forward return:

* count = those points; directional = the bullish or bearish ones.
* hit_rate over the directional points: bullish hits when the forward return is > 0,
  bearish when it is < 0. Neutral points are left out (they make no directional call).
* Rank IC (see `rank_ic`) of the signed confidence (+c bullish, -c bearish, 0 neutral)
  against the excess return, per as_of date: ic_mean, ic_t, ic_dates.
* helps = IC mean > 0 (None when there is no IC mean): ranking stocks by this expert's
  stance would have favoured the ones that beat the benchmark.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stockdesk.evaluation.application.scores._common import float_array, folded_labels, share
from stockdesk.evaluation.application.scores.rank_ic import rank_ic
from stockdesk.evaluation.domain.metrics import ExpertAttribution

STANCES: tuple[str, ...] = ("bullish", "bearish", "neutral")
ATTRIBUTION_COLUMNS: tuple[str, ...] = (
    "expert",
    "as_of",
    "stance",
    "confidence",
    "forward_return",
    "excess_return",
)


def stance_array(stances: pd.Series) -> np.ndarray:
    """Stance labels lower-cased; an unknown stance raises rather than counting as neutral."""
    labels = folded_labels(stances, str.lower)
    unknown = sorted(set(labels) - set(STANCES))
    if unknown:
        raise ValueError(f"unknown stances {unknown}; expected one of {STANCES}")
    return labels


def signed_stance(stances: pd.Series, confidence: pd.Series) -> np.ndarray:
    """+c bullish, -c bearish, 0 neutral: the expert's signal in the same units as the desk's."""
    labels = stance_array(stances)
    conf = float_array(confidence)
    return np.where(labels == "bullish", conf, np.where(labels == "bearish", -conf, 0.0))


def expert_attribution(frame: pd.DataFrame, min_symbols: int = 5) -> list[ExpertAttribution]:
    """One row per expert (sorted by name): stance hit rate and rank IC of its signed confidence."""
    missing = [c for c in ATTRIBUTION_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"attribution frame lacks columns {missing}")
    rows: list[ExpertAttribution] = []
    for expert, points in frame.groupby("expert", sort=True):
        ret = float_array(points["forward_return"])
        known = np.isfinite(ret)
        points, ret = points[known], ret[known]
        labels = stance_array(points["stance"])
        directional = labels != "neutral"
        hits = np.where(labels == "bullish", ret > 0, ret < 0)[directional]
        ic = rank_ic(
            points["as_of"],
            signed_stance(points["stance"], points["confidence"]),
            points["excess_return"],
            min_symbols=min_symbols,
        )
        rows.append(
            ExpertAttribution(
                expert=str(expert),
                count=len(points),
                directional=int(directional.sum()),
                hit_rate=share(hits),
                ic_mean=ic.mean,
                ic_t=ic.t,
                ic_dates=ic.dates,
                helps=None if ic.mean is None else ic.mean > 0,
            )
        )
    return rows
