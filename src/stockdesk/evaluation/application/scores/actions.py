"""How BUY, SELL and HOLD verdicts did, and the per-point hit rule the bootstrap reuses.

Definitions (the contract):

* signed confidence = +c for BUY, -c for SELL, 0 for HOLD (the signal the rank IC ranks).
* A BUY hits when its forward return is > 0, a SELL when it is < 0, a HOLD when
  |return| <= `hold_band` (the desk said "nothing much will happen"; default band 3%).
* Per action present: count, hit_rate, mean/median forward return and mean/median excess
  return. Points whose forward return is not finite are left out (not yet knowable); an
  excess figure uses only the points whose excess return is finite.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stockdesk.evaluation.application.scores._common import (
    ACTIONS,
    action_array,
    float_array,
    mean_or_none,
    median_or_none,
    share,
)
from stockdesk.evaluation.domain.metrics import ActionStats

DEFAULT_HOLD_BAND = 0.03


def signed_confidence(actions: Any, confidence: Any) -> np.ndarray:
    """+c for BUY, -c for SELL, 0 for HOLD: one number that orders verdicts from sell to buy."""
    labels = action_array(actions)
    conf = float_array(confidence)
    return np.where(labels == "BUY", conf, np.where(labels == "SELL", -conf, 0.0))


def hit_flags(actions: Any, returns: Any, hold_band: float = DEFAULT_HOLD_BAND) -> np.ndarray:
    """Whether each verdict was right about its forward return; a non-finite return is never a hit."""
    labels = action_array(actions)
    ret = float_array(returns)
    with np.errstate(invalid="ignore"):
        hits = np.where(
            labels == "BUY", ret > 0, np.where(labels == "SELL", ret < 0, np.abs(ret) <= hold_band)
        )
    return hits.astype(bool) & np.isfinite(ret)


def action_stats(
    actions: Any, returns: Any, excess: Any, hold_band: float = DEFAULT_HOLD_BAND
) -> dict[str, ActionStats]:
    """Stats per action present (in BUY, SELL, HOLD order), over points with a finite return."""
    labels = action_array(actions)
    ret = float_array(returns)
    exc = float_array(excess)
    hits = hit_flags(labels, ret, hold_band)
    known = np.isfinite(ret)
    result: dict[str, ActionStats] = {}
    for action in ACTIONS:
        mask = known & (labels == action)
        if not mask.any():
            continue
        result[action] = ActionStats(
            action=action,
            count=int(mask.sum()),
            hit_rate=share(hits[mask]),
            mean_return=mean_or_none(ret[mask]),
            median_return=median_or_none(ret[mask]),
            mean_excess=mean_or_none(exc[mask]),
            median_excess=median_or_none(exc[mask]),
        )
    return result
