"""Calibration: when the desk says 70%, does the stock beat the benchmark about 70% of the time?

Definitions (the contract):

* p = the verdict's probability that the excess return is positive: BUY -> c, SELL -> 1 - c,
  HOLD -> 0.5 (see `probability_up`); o = 1 if the excess return is > 0, else 0.
* Brier = mean((p - o)^2), in [0, 1].
* Buckets: `buckets` equal-width intervals [k/B, (k+1)/B), the last one closed so that
  p = 1.0 falls in it (B = 5: [0,.2), [.2,.4), [.4,.6), [.6,.8), [.8,1]).
* Murphy decomposition over the buckets, with n_k points, mean probability pbar_k and
  observed rate obar_k in bucket k, and obar the overall rate over N points:
  REL = sum n_k/N (pbar_k - obar_k)^2, RES = sum n_k/N (obar_k - obar)^2,
  UNC = obar (1 - obar).
  Brier = REL - RES + UNC holds exactly when p is constant within each bucket. In general
  Brier = REL - RES + UNC + (1/N) sum_k sum_{i in k} [(p_i - pbar_k)^2 - 2 (p_i - pbar_k)(o_i - obar_k)],
  and that remainder is reported as `within_bucket` = Brier - (REL - RES + UNC), so the
  identity is always visible.
* ECE = sum n_k/N |pbar_k - obar_k|; brier_skill = 1 - Brier / UNC (None when UNC == 0:
  with a single outcome there is no climatology to beat).
* Reliability table: one row per bucket (low, high, count, mean_prob, observed_rate), the
  means None for an empty bucket.

Points whose p or o is not finite are left out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stockdesk.evaluation.application.scores._common import action_array, float_array
from stockdesk.evaluation.domain.metrics import Calibration, ReliabilityRow


def probability_up(actions: Any, confidence: Any) -> np.ndarray:
    """The verdict's implied probability of a positive excess return (BUY c, SELL 1-c, HOLD 0.5)."""
    labels = action_array(actions)
    conf = float_array(confidence)
    return np.where(labels == "BUY", conf, np.where(labels == "SELL", 1.0 - conf, 0.5))


def bucket_edges(buckets: int) -> np.ndarray:
    """k / buckets for k = 0..buckets (exact divisions, so 0.6 is the edge 3/5 and not 0.6000000000000001)."""
    return np.arange(buckets + 1) / buckets


def bucket_index(prob: np.ndarray, buckets: int) -> np.ndarray:
    """Bucket of each probability: [k/B, (k+1)/B), with 1.0 in the last bucket."""
    index = np.searchsorted(bucket_edges(buckets), prob, side="right") - 1
    return np.clip(index, 0, buckets - 1)


def calibration(prob: Any, outcome: Any, buckets: int = 5) -> Calibration:
    """Brier score, its Murphy decomposition, ECE and the reliability table of `prob` vs `outcome`."""
    if buckets < 1:
        raise ValueError("buckets must be >= 1")
    p = float_array(prob)
    o = float_array(outcome)
    if len(p) != len(o):
        raise ValueError(f"prob has {len(p)} points, outcome {len(o)}")
    keep = np.isfinite(p) & np.isfinite(o)
    p, o = p[keep], o[keep]
    if ((p < 0) | (p > 1)).any():
        raise ValueError("probabilities must lie in [0, 1]")
    if not np.isin(o, (0.0, 1.0)).all():
        raise ValueError("outcomes must be 0 or 1")

    edges = bucket_edges(buckets)
    index = bucket_index(p, buckets)
    counts = np.bincount(index, minlength=buckets)
    prob_sums = np.bincount(index, weights=p, minlength=buckets)
    hit_sums = np.bincount(index, weights=o, minlength=buckets)
    filled = counts > 0
    pbar = np.divide(prob_sums, counts, out=np.full(buckets, np.nan), where=filled)
    obar_k = np.divide(hit_sums, counts, out=np.full(buckets, np.nan), where=filled)
    table = [
        ReliabilityRow(
            low=float(edges[k]),
            high=float(edges[k + 1]),
            count=int(counts[k]),
            mean_prob=float(pbar[k]) if filled[k] else None,
            observed_rate=float(obar_k[k]) if filled[k] else None,
        )
        for k in range(buckets)
    ]
    n = len(p)
    if n == 0:
        return Calibration(count=0, table=table)

    weight = counts[filled] / n
    obar = float(np.mean(o))
    brier = float(np.mean((p - o) ** 2))
    rel = float(np.sum(weight * (pbar[filled] - obar_k[filled]) ** 2))
    res = float(np.sum(weight * (obar_k[filled] - obar) ** 2))
    unc = obar * (1.0 - obar)
    return Calibration(
        count=n,
        base_rate=obar,
        brier=brier,
        reliability=rel,
        resolution=res,
        uncertainty=unc,
        within_bucket=brier - (rel - res + unc),
        ece=float(np.sum(weight * np.abs(pbar[filled] - obar_k[filled]))),
        brier_skill=1.0 - brier / unc if unc > 0 else None,
        table=table,
    )
