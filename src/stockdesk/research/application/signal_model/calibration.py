"""Walk-forward calibration: a model score turned into P(excess return > 0), from past outcomes only.

At a prediction date D the calibrator sees the (score, outcome) pairs of earlier grid dates whose
labels were all known by D (the same purge and embargo as the fit). Their scores were themselves
predicted out of sample at their own dates. With at least MIN_OUTCOMES such pairs:

- m, the number of independent outcomes, counts each past pair as min(1, grid step / horizon)
  (overlapping labels, a 60-day label on a 5-day grid, count once) times (N - 1) / N for a date
  with N labelled symbols (N excess returns over those N symbols' equal-weight index sum to about
  zero: N - 1 of them are free);
- the scores are cut into round(sqrt(m)) bins of equal count (at least 2, at most BINS: a short
  history gets a coarse map); an isotonic (pool-adjacent-violators) fit of the outcome rate on the
  bins' mean scores gives an increasing map, read between bins by linear interpolation (flat beyond
  the ends);
- the map is shrunk toward the walk-forward base rate with SHRINK pseudo-outcomes:
  p = (m x isotonic + SHRINK x base) / (m + SHRINK), so a small history says little;
- the base rate itself is the past share of positive outcomes with NEUTRAL_WEIGHT pseudo-outcomes
  at 1/2 (about half of a universe beats its own equal-weight index), counted like the map;
- the same is done for the expected excess return (outcomes winsorised at the past 1st/99th
  percentiles, shrunk toward their past mean), which the action compares with costs;
- `hold_share` is the past share of |excess| <= hold_band: the calibrated odds a HOLD is right.

With fewer pairs the point is `uncalibrated`: no probability is given. `ece` is the expected
calibration error (10 equal-width bins) of the probabilities this calibrator gave at earlier dates
whose outcomes were known by D: how well its own past probabilities held, None before there are
MIN_OUTCOMES of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

MIN_OUTCOMES = 100
SHRINK = 100.0
BINS = 50
EDGE_SAMPLE = 5000
NEUTRAL_WEIGHT = 50.0  # pseudo-outcomes at 1/2: about half a universe beats its equal-weight index
ECE_BINS = 10


@dataclass(frozen=True)
class CalibrationSettings:
    hold_band: float = 0.03
    min_outcomes: int = MIN_OUTCOMES
    shrink: float = SHRINK
    overlap: float = 1.0
    """min(1, grid step / horizon): overlapping labels count this much each toward the shrinkage"""


def isotonic(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted pool-adjacent-violators: the increasing fit of y on x (x sorted ascending)."""
    blocks: list[list[float]] = []  # [value, weight, count]
    for value, weight in zip(y, w, strict=True):
        blocks.append([float(value), float(weight), 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, c2 = blocks.pop()
            v1, w1, c1 = blocks.pop()
            total = w1 + w2
            blocks.append([(v1 * w1 + v2 * w2) / total if total else v2, total, c1 + c2])
    return np.repeat([b[0] for b in blocks], [b[2] for b in blocks])


def binned_map(scores: np.ndarray, values: np.ndarray, bins: int = BINS) -> tuple[np.ndarray, np.ndarray]:
    """(bin mean scores, isotonic bin values) of `values` on `scores` in (about) equal-count bins:
    the edges are quantiles of at most EDGE_SAMPLE evenly strided scores, so a long history costs
    one pass, not a sort."""
    stride = max(1, len(scores) // EDGE_SAMPLE)
    sample = np.sort(scores[::stride])
    edges = np.unique(np.quantile(sample, np.linspace(0, 1, min(bins, len(scores)) + 1)[1:-1]))
    index = np.searchsorted(edges, scores, side="right")
    counts = np.bincount(index, minlength=len(edges) + 1).astype(float)
    filled = counts > 0
    centers = np.bincount(index, scores, len(edges) + 1)[filled] / counts[filled]
    means = np.bincount(index, values, len(edges) + 1)[filled] / counts[filled]
    return centers, isotonic(centers, means, counts[filled])


def expected_calibration_error(prob: np.ndarray, outcome: np.ndarray) -> float:
    """Sum over 10 equal-width bins of (share of points) x |mean probability - outcome rate|."""
    index = np.clip((prob * ECE_BINS).astype(int), 0, ECE_BINS - 1)
    counts = np.bincount(index, minlength=ECE_BINS)
    gap = np.abs(np.bincount(index, prob, ECE_BINS) - np.bincount(index, outcome, ECE_BINS))
    return float(gap.sum() / counts.sum())


def calibrate_walk_forward(
    scores: pd.DataFrame,
    labels: pd.DataFrame,
    known: pd.Series,
    settings: CalibrationSettings,
    predict_dates: Sequence[pd.Timestamp] | None = None,
) -> pd.DataFrame:
    """Per (date, symbol) of `scores`: probability_up, expected_excess, hold_share, base_rate,
    calibration_n, calibration_ece, fitted_to (the newest outcome date used; NaT uncalibrated).

    `scores`: date, symbol, score. `labels`: date, symbol, label. `known`: per label date, the day
    all its labels are known (NaT never)."""
    frame = scores.merge(labels[["date", "symbol", "label"]], on=["date", "symbol"], how="left")
    frame["known"] = frame["date"].map(known)
    dates = sorted(
        pd.Timestamp(d) for d in (predict_dates if predict_dates is not None else frame["date"].unique())
    )
    # rows ordered by when their outcome is known: the past at a date is a prefix of this order
    never = np.iinfo("int64").max
    known_at = frame["known"].to_numpy(dtype="datetime64[ns]").view("int64")
    known_at = np.where(np.isnat(frame["known"].to_numpy(dtype="datetime64[ns]")), never, known_at)
    order = np.argsort(known_at, kind="stable")
    score = frame["score"].to_numpy(dtype=float)[order]
    label = frame["label"].to_numpy(dtype=float)[order]
    # N excess returns over the same N symbols' equal-weight index carry N - 1 independent outcomes
    labelled = frame.assign(has=np.isfinite(frame["label"].to_numpy(dtype=float)))
    breadth = labelled.groupby("date")["has"].transform("sum").to_numpy(dtype=float)[order]
    freedom = np.where(breadth > 1, (breadth - 1) / np.maximum(breadth, 1), 1.0)
    day_of = frame["date"].to_numpy(dtype="datetime64[ns]")[order]
    known_sorted = known_at[order]
    usable = np.isfinite(score) & np.isfinite(label)
    given = np.full(len(frame), np.nan)  # probabilities given so far, in the known order (for the ECE)
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    rows_of = frame.groupby("date", sort=False).indices
    all_scores = frame["score"].to_numpy(dtype=float)  # read once, not once per date
    symbols = frame["symbol"].to_numpy()
    out = []
    for day in dates:
        prefix = int(np.searchsorted(known_sorted, np.datetime64(day, "ns").view("int64"), side="right"))
        past = usable[:prefix]
        today = rows_of.get(np.datetime64(day, "ns"), np.empty(0, dtype=np.int64))
        result = _calibrated(all_scores[today], score[:prefix][past],
                             label[:prefix][past], settings,
                             float(freedom[:prefix][past].sum()))  # fmt: skip
        given[position[today]] = result["probability_up"]
        result["calibration_ece"] = _past_ece(given[:prefix], label[:prefix], settings.min_outcomes)
        result["fitted_to"] = pd.Timestamp(day_of[:prefix][past].max()) if past.any() else pd.NaT
        out.append(pd.DataFrame({"date": day, "symbol": symbols[today], **result}))
    columns = ["date", "symbol", "probability_up", "expected_excess", "hold_share", "base_rate",
               "calibration_n", "calibration_ece", "fitted_to"]  # fmt: skip
    return pd.concat(out, ignore_index=True)[columns] if out else pd.DataFrame(columns=columns)


def _calibrated(
    today: np.ndarray,
    score: np.ndarray,
    label: np.ndarray,
    settings: CalibrationSettings,
    independent: float,
) -> dict[str, object]:
    """Today's calibrated figures from the past outcomes' scores and labels; `independent`: the
    past pairs' independent count before the overlap factor (see the module docstring)."""
    n = len(label)
    blank = np.full(len(today), np.nan)
    if n == 0:
        return {"probability_up": blank, "expected_excess": blank, "hold_share": blank, "base_rate": np.nan,
                "calibration_n": 0}  # fmt: skip
    up = (label > 0).astype(float)
    share = float(up.mean())  # the walk-forward base rate: what a forecaster knew (reported)
    effective = independent * settings.overlap
    base = (share * effective + NEUTRAL_WEIGHT * 0.5) / (effective + NEUTRAL_WEIGHT)  # what p shrinks to
    hold = float((np.abs(label) <= settings.hold_band).mean())
    if n < settings.min_outcomes:
        return {"probability_up": blank, "expected_excess": blank, "hold_share": np.full(len(today), hold),
                "base_rate": share, "calibration_n": n}  # fmt: skip
    low, high = np.percentile(label, [1, 99])
    clipped = np.clip(label, low, high)
    weight = effective / (effective + settings.shrink)
    bins = int(np.clip(round(np.sqrt(effective)), 2, BINS))  # more outcomes, a finer map
    centers, rates = binned_map(score, up, bins)
    probability = weight * np.interp(today, centers, rates) + (1 - weight) * base
    centers, means = binned_map(score, clipped, bins)
    expected = weight * np.interp(today, centers, means) + (1 - weight) * float(clipped.mean())
    finite = np.isfinite(today)
    return {
        "probability_up": np.where(finite, probability, np.nan),
        "expected_excess": np.where(finite, expected, np.nan),
        "hold_share": np.full(len(today), hold),
        "base_rate": share,
        "calibration_n": n,
    }


def _past_ece(given: np.ndarray, label: np.ndarray, minimum: int) -> float | None:
    """ECE of the probabilities given at earlier dates whose outcomes are known now (None below
    `minimum` of them)."""
    seen = np.isfinite(given) & np.isfinite(label)
    if seen.sum() < minimum:
        return None
    return expected_calibration_error(given[seen], (label[seen] > 0).astype(float))
