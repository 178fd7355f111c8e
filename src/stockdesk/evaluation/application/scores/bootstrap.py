"""Paired moving-block bootstrap: is a mode's edge over the baseline more than date-to-date luck?

Definition (the contract):

* The points of a mode and of the baseline are paired by evaluation date: both are resampled
  on the same drawn dates, so a market-wide good or bad day moves both sides together.
* Take the n sorted unique `dates`. A resample draws blocks of `block` consecutive dates
  (moving-block bootstrap; block defaults to max(1, round(n ** (1/3))), at most n) with
  replacement until n dates are drawn, the last block truncated. Block starts are uniform on
  0..n-block and come from `numpy.random.default_rng(seed)` as one
  `rng.integers(0, n - block + 1, size=(resamples, ceil(n / block)))` call, row r being
  resample r (see `moving_block_indices`). Blocks keep the dependence between neighbouring
  dates (overlapping forward-return windows) that a point-by-point bootstrap would ignore.
* Each resample's subset holds every point on the drawn dates; a date drawn twice counts
  twice (also as two dates for a per-date statistic such as the mean rank IC). Its value is
  statistic(mode subset) - statistic(baseline subset).
* Result: `observed` = the difference on the original sample; `low`, `high` = the alpha/2 and
  1 - alpha/2 percentiles (numpy's linear interpolation) of the finite resampled differences
  (NaN resamples, where a side has no data, are dropped); `distinguishable` =
  not (low <= 0 <= high). With no finite resample, low and high are None and distinguishable
  is False.

Speed: the report's statistics (`hit_rate`, `mean_rank_ic`, `mean_excess`) are ratios of
per-date sums, value = sum_d num_d / sum_d den_d. Their per-date sums (per-date ICs for the rank
IC) are computed once; a resample is then a vector of date counts w, and its value is
(w . num) / (w . den): 1,000 resamples are two small matrix products. Any other callable over a
points frame works too, through a slower path that builds each resample's frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.evaluation.application.scores._common import action_array, date_array, float_array
from stockdesk.evaluation.application.scores.actions import DEFAULT_HOLD_BAND, hit_flags, signed_confidence
from stockdesk.evaluation.application.scores.rank_ic import daily_ic
from stockdesk.evaluation.domain.metrics import BootstrapInterval

POINT_COLUMNS: tuple[str, ...] = ("as_of", "action", "confidence", "forward_return", "excess_return")
DEFAULT_SEED = 20240101


def _ratio(num: np.ndarray | float, den: np.ndarray | float) -> np.ndarray:
    """num / den, NaN where den is 0 (a side with no data on the drawn dates has no value)."""
    num, den = np.asarray(num, float), np.asarray(den, float)
    return np.divide(num, den, out=np.full(np.shape(num), np.nan), where=den > 0)


def _known(points: pd.DataFrame) -> pd.DataFrame:
    """The points whose forward return is known (the same rule `summarise` applies)."""
    return points[np.isfinite(float_array(points["forward_return"]))]


def _per_date_sums(days: np.ndarray, values: np.ndarray, dates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum and count of `values` per date, in the order of `dates` (0 for dates without values)."""
    grouped = pd.Series(values).groupby(days).agg(["sum", "count"]).reindex(dates, fill_value=0)
    return grouped["sum"].to_numpy(dtype=float), grouped["count"].to_numpy(dtype=float)


class DateDecomposable:
    """A statistic whose value is sum_d num_d / sum_d den_d over evaluation dates: the base of the
    report's statistics. Calling it on a points frame gives that ratio; the bootstrap resamples
    its per-date sums instead of rebuilding every resample's points (a plain callable is rebuilt)."""

    def per_date(self, points: pd.DataFrame, dates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """num_d and den_d for each of `dates` (sorted datetime64); 0 for a date without points."""
        raise NotImplementedError

    def __call__(self, points: pd.DataFrame) -> float:
        dates = np.unique(date_array(points["as_of"]))
        num, den = self.per_date(points, dates)
        return float(_ratio(num.sum(), den.sum()))


class HitRate(DateDecomposable):
    """Share of verdicts that hit (BUY up, SELL down, HOLD within the band), points with a known return."""

    def __init__(self, hold_band: float = DEFAULT_HOLD_BAND) -> None:
        self.hold_band = hold_band

    def per_date(self, points: pd.DataFrame, dates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        known = _known(points)
        hits = hit_flags(known["action"], known["forward_return"], self.hold_band).astype(float)
        return _per_date_sums(date_array(known["as_of"]), hits, dates)


class MeanExcess(DateDecomposable):
    """Mean excess return of the points with a known forward and excess return.

    `actions` (e.g. ("BUY",)) restricts it to those verdicts: when a mode and the baseline
    score the same symbols and dates, the mean over all points is the same for both, and the
    mean excess of what each side chose to buy is the comparison that can differ.
    """

    def __init__(self, actions: tuple[str, ...] | None = None) -> None:
        self.actions = None if actions is None else tuple(a.upper() for a in actions)

    def per_date(self, points: pd.DataFrame, dates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        known = _known(points)
        excess = float_array(known["excess_return"])
        finite = np.isfinite(excess)
        if self.actions is not None:
            finite &= np.isin(action_array(known["action"]), self.actions)
        return _per_date_sums(date_array(known["as_of"])[finite], excess[finite], dates)


class MeanRankIC(DateDecomposable):
    """Mean over dates of the Spearman IC of signed confidence vs excess return (NaN without a date)."""

    def __init__(self, min_symbols: int = 5) -> None:
        self.min_symbols = min_symbols

    def per_date(self, points: pd.DataFrame, dates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        known = _known(points)
        signal = (
            float_array(known["probability"]) - 0.5  # a calibrated probability ranks as itself
            if "probability" in known
            else signed_confidence(known["action"], known["confidence"])
        )
        daily = daily_ic(known["as_of"], signal, known["excess_return"], self.min_symbols)
        ic = daily["ic"].reindex(dates)
        return ic.fillna(0.0).to_numpy(dtype=float), ic.notna().to_numpy(dtype=float)


class ActionExcess(DateDecomposable):
    """Mean excess return earned by following the action: +excess for BUY, -excess for SELL, 0
    for HOLD, over the points with a known forward and excess return. Two sets on the same points
    differ only where their actions differ: what a change to the verdict (reflection) earned."""

    def per_date(self, points: pd.DataFrame, dates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        known = _known(points)
        excess = float_array(known["excess_return"])
        labels = action_array(known["action"])
        signed = np.where(labels == "BUY", excess, np.where(labels == "SELL", -excess, 0.0))
        finite = np.isfinite(excess)
        return _per_date_sums(date_array(known["as_of"])[finite], signed[finite], dates)


class BrierScore(DateDecomposable):
    """Mean (p - 1[excess > 0])^2 over the points with a calibrated probability and a known excess
    return (uncalibrated points carry no probability and are left out)."""

    def per_date(self, points: pd.DataFrame, dates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if "probability" not in points:
            return np.zeros(len(dates)), np.zeros(len(dates))
        known = _known(points)
        p = float_array(known["probability"])
        excess = float_array(known["excess_return"])
        usable = np.isfinite(p) & np.isfinite(excess)
        squared = (p[usable] - (excess[usable] > 0)) ** 2
        return _per_date_sums(date_array(known["as_of"])[usable], squared, dates)


hit_rate = HitRate()
mean_excess = MeanExcess()
mean_rank_ic = MeanRankIC()


def default_block(n_dates: int) -> int:
    """max(1, round(n ** (1/3))): the usual cube-root rule for block length."""
    return max(1, round(n_dates ** (1 / 3)))


def moving_block_indices(n_dates: int, block: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples, n_dates) date positions: blocks of `block` consecutive dates, the last truncated."""
    n_blocks = math.ceil(n_dates / block)
    starts = rng.integers(0, n_dates - block + 1, size=(resamples, n_blocks))
    positions = starts[:, :, None] + np.arange(block)
    return positions.reshape(resamples, n_blocks * block)[:, :n_dates]


def date_counts(indices: np.ndarray, n_dates: int) -> np.ndarray:
    """(resamples, n_dates) how often each date was drawn in each resample."""
    resamples = indices.shape[0]
    flat = (indices + np.arange(resamples)[:, None] * n_dates).ravel()
    return np.bincount(flat, minlength=resamples * n_dates).reshape(resamples, n_dates).astype(float)


def _fast_differences(
    statistic: DateDecomposable, mode: pd.DataFrame, base: pd.DataFrame, days: np.ndarray, counts: np.ndarray
) -> tuple[float, np.ndarray]:
    """Observed and resampled differences from per-date sums computed once per side."""
    mode_num, mode_den = statistic.per_date(mode, days)
    base_num, base_den = statistic.per_date(base, days)
    observed = _ratio(mode_num.sum(), mode_den.sum()) - _ratio(base_num.sum(), base_den.sum())
    diffs = _ratio(counts @ mode_num, counts @ mode_den) - _ratio(counts @ base_num, counts @ base_den)
    return float(observed), diffs


def _resample_frame(
    by_day: dict[np.datetime64, pd.DataFrame], days: np.ndarray, draw: np.ndarray
) -> pd.DataFrame:
    """The points on the drawn dates; draw j's as_of is shifted by j nanoseconds so repeats stay apart."""
    parts = []
    for j, position in enumerate(draw):
        part = by_day.get(days[position])
        if part is not None:
            parts.append(part.assign(as_of=days[position] + np.timedelta64(j, "ns")))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(POINT_COLUMNS))


def _slow_differences(
    statistic: Callable[[pd.DataFrame], float],
    mode: pd.DataFrame,
    base: pd.DataFrame,
    days: np.ndarray,
    indices: np.ndarray,
) -> tuple[float, np.ndarray]:
    """Observed and resampled differences by recomputing `statistic` on every resampled frame."""

    def split(points: pd.DataFrame) -> tuple[pd.DataFrame, dict[np.datetime64, pd.DataFrame]]:
        points = points.assign(as_of=date_array(points["as_of"]))
        points = points[points["as_of"].isin(days)]
        return points, {day.to_datetime64(): part for day, part in points.groupby("as_of")}

    mode, mode_days = split(mode)
    base, base_days = split(base)
    observed = float(statistic(mode)) - float(statistic(base))
    diffs = np.array(
        [
            float(statistic(_resample_frame(mode_days, days, draw)))
            - float(statistic(_resample_frame(base_days, days, draw)))
            for draw in indices
        ]
    )
    return observed, diffs


def bootstrap_difference(
    dates: Any,
    mode_values: pd.DataFrame,
    base_values: pd.DataFrame,
    statistic: Callable[[pd.DataFrame], float],
    resamples: int = 1000,
    block: int | None = None,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
) -> BootstrapInterval:
    """Interval of statistic(mode) - statistic(baseline), resampling evaluation dates in blocks.

    `dates` are the evaluation dates to resample (their sorted unique values); `mode_values` and
    `base_values` are points frames with an `as_of` column (plus whatever `statistic` reads);
    points on other dates are ignored.
    """
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    if not 0 < alpha < 1:
        raise ValueError("alpha must lie in (0, 1)")
    days = np.unique(date_array(dates))
    n_dates = len(days)
    if block is None:
        block = default_block(n_dates)
    elif block < 1:
        raise ValueError("block must be >= 1")
    block = max(1, min(block, n_dates))
    if n_dates == 0:
        return BootstrapInterval(block=block, dates=0, alpha=alpha)

    indices = moving_block_indices(n_dates, block, resamples, np.random.default_rng(seed))
    if isinstance(statistic, DateDecomposable):
        observed, diffs = _fast_differences(
            statistic, mode_values, base_values, days, date_counts(indices, n_dates)
        )
    else:
        observed, diffs = _slow_differences(statistic, mode_values, base_values, days, indices)
    return _interval(observed, diffs, block, n_dates, alpha)


def _interval(
    observed: float, values: np.ndarray, block: int, n_dates: int, alpha: float
) -> BootstrapInterval:
    """The percentile interval of the finite resampled `values`."""
    finite = values[np.isfinite(values)]
    if len(finite) == 0:
        return BootstrapInterval(observed=observed, block=block, dates=n_dates, alpha=alpha)
    low, high = np.percentile(finite, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return BootstrapInterval(
        observed=observed,
        low=float(low),
        high=float(high),
        resamples=len(finite),
        block=block,
        dates=n_dates,
        alpha=alpha,
        distinguishable=not (low <= 0 <= high),
    )


def bootstrap_interval(
    points: pd.DataFrame,
    statistic: DateDecomposable,
    resamples: int = 1000,
    seed: int = DEFAULT_SEED,
    alpha: float = 0.05,
) -> BootstrapInterval:
    """One set's statistic with its moving-block interval over its own dates (the same resampling
    as `bootstrap_difference`, against nothing): e.g. a mean rank IC and whether it excludes 0."""
    days = np.unique(date_array(points["as_of"]))
    n_dates = len(days)
    block = max(1, min(default_block(n_dates), n_dates))
    if n_dates == 0:
        return BootstrapInterval(block=block, dates=0, alpha=alpha)
    counts = date_counts(
        moving_block_indices(n_dates, block, resamples, np.random.default_rng(seed)), n_dates
    )
    num, den = statistic.per_date(points, days)
    observed = float(_ratio(num.sum(), den.sum()))
    return _interval(observed, _ratio(counts @ num, counts @ den), block, n_dates, alpha)
