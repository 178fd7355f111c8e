"""The walk-forward signal model: how much each ranked factor counts, learned only from the past.

For one horizon h, every date t of the factor grid with labels (the forward excess return of each
symbol over h trading days, entered at the next open) gives one cross-sectional ridge regression of
the per-date ranked labels on the ranked factors (a missing factor contributes 0, the median rank):

    b_t = (X_t' X_t + ridge * n_t / 12 * I)^-1 X_t' y_t

A date's slopes may be used at a prediction date D only once every label of t is known: its latest
exit day plus `embargo` trading days is on or before D (purging by h, then an embargo). At D the
weight of factor j is the mean of b_t,j over the usable dates, kept in proportion to how sure that
history is of it: with t_j = mean / (sd / sqrt(n_eff)), where n_eff = dates x min(1, step / h)
counts overlapping labels once, the weight is mean_j x max(0, 1 - (t_keep / t_j)^2), zero below
|t| = t_keep. Fewer than `min_dates` usable dates or `min_pairs` labelled pairs: the prior weights
(the published evidence's signs, `Factor.prior`, x PRIOR_SCALE so their scores sit on the fitted
scale) are used instead and the date says `prior`.

score(D, s) = sum_j w_j x_sj: the expected per-date rank of s's excess return (0 = the median).
Everything here is pure numpy/pandas over frames the caller built point in time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

PRIOR_SCALE = 0.02  # rank-slope per unit of prior strength: published factor ICs are ~0.02-0.05
RANK_VARIANCE = 1.0 / 12.0  # variance of a uniform rank in [-0.5, 0.5]


@dataclass(frozen=True)
class FitSettings:
    horizon: int
    embargo: int = 2
    """trading days after a label's exit before it may be used"""
    min_dates: int = 26
    """usable training dates before the model is fitted (half a year of weekly dates)"""
    min_pairs: int = 200
    """usable labelled (symbol, date) pairs before the model is fitted"""
    ridge: float = 1.0
    t_keep: float = 2.0


@dataclass(frozen=True)
class DateFit:
    """What the model used at one prediction date."""

    as_of: pd.Timestamp
    source: str
    """"prior" or "fitted" """
    pairs: int
    dates: int
    fitted_to: pd.Timestamp | None
    """the newest training date whose labels were used (None for the prior)"""
    weights: dict[str, float]
    t: dict[str, float | None] = field(default_factory=dict)


@dataclass(frozen=True)
class WalkForward:
    scores: pd.DataFrame
    """date, symbol, score (NaN where the symbol has no factor at all)"""
    fits: dict[pd.Timestamp, DateFit]


def per_date_ranks(frame: pd.DataFrame, column: str) -> np.ndarray:
    """`column` ranked per date into [-0.5, 0.5] (NaN kept; a lone value sits at 0)."""
    groups = frame.groupby("date", sort=False)[column]
    ranks, counts = groups.rank(method="average"), groups.transform("count")
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(counts > 1, (ranks - 1) / (counts - 1) - 0.5, 0.0)
    return np.where(frame[column].notna(), scaled, np.nan)


def known_dates(labels: pd.DataFrame, calendar: np.ndarray, embargo: int) -> pd.Series:
    """Per label date: the first day all its labels are known (latest exit + embargo trading days);
    NaT when one of them never exits within the calendar."""
    exits = labels.groupby("date")["exit"].max()
    positions = np.searchsorted(calendar, exits.to_numpy(dtype="datetime64[ns]"), side="left") + embargo
    known = np.where(
        exits.notna().to_numpy() & (positions < len(calendar)),
        calendar[np.minimum(positions, len(calendar) - 1)],
        np.datetime64("NaT"),
    )
    return pd.Series(pd.to_datetime(known), index=exits.index)


def cross_section_slopes(
    ranked: pd.DataFrame, labels: pd.DataFrame, features: Sequence[str], ridge: float
) -> tuple[pd.DatetimeIndex, np.ndarray, np.ndarray]:
    """(dates, slopes (dates x features), labelled pairs per date) of every date with 3+ labels."""
    joined = ranked.merge(labels[["date", "symbol", "label"]], on=["date", "symbol"], how="inner")
    joined = joined[np.isfinite(joined["label"].to_numpy(dtype=float))]
    joined = joined.assign(y=per_date_ranks(joined, "label"))
    dates, slopes, pairs = [], [], []
    k = len(features)
    for day, group in joined.groupby("date", sort=True):
        if len(group) < 3:
            continue
        x = np.nan_to_num(group[list(features)].to_numpy(dtype=float), nan=0.0)
        y = group["y"].to_numpy(dtype=float)
        gram = x.T @ x + ridge * len(group) * RANK_VARIANCE * np.eye(k)
        slopes.append(np.linalg.solve(gram, x.T @ y))
        dates.append(day)
        pairs.append(len(group))
    return pd.DatetimeIndex(dates), np.array(slopes).reshape(len(dates), k), np.array(pairs, dtype=int)


def fitted_weights(slopes: np.ndarray, n_eff: float, t_keep: float) -> tuple[np.ndarray, np.ndarray]:
    """(kept weights, t-statistics) from the usable dates' slopes (see the module docstring)."""
    mean = slopes.mean(axis=0)
    std = slopes.std(axis=0, ddof=1) if len(slopes) > 1 else np.full(slopes.shape[1], np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (std / np.sqrt(n_eff))
        keep = np.where(np.isfinite(t) & (np.abs(t) > t_keep), 1.0 - (t_keep / t) ** 2, 0.0)
    return mean * keep, t


def walk_forward(
    ranked: pd.DataFrame,
    labels: pd.DataFrame,
    calendar: np.ndarray,
    features: Sequence[str],
    prior: Callable[[str, str], float],
    settings: FitSettings,
    predict_dates: Sequence[pd.Timestamp] | None = None,
) -> WalkForward:
    """Scores at every date of `ranked` (or `predict_dates`), each from the labels known by then.

    `ranked`: date, symbol, market and `features` rank-normalised per date. `labels`: date, symbol,
    label (forward excess return, NaN unknown) and exit (its h-th trading day, NaT unknown).
    `calendar`: the sorted trading days (datetime64[ns]) the embargo counts in. `prior(market,
    feature)`: the evidence's weight.
    """
    features = list(features)
    calendar = np.asarray(calendar, dtype="datetime64[ns]")
    train_dates, slopes, pairs = cross_section_slopes(ranked, labels, features, settings.ridge)
    known = known_dates(labels, calendar, settings.embargo).reindex(train_dates)
    order = np.argsort(known.to_numpy(dtype="datetime64[ns]"), kind="stable")
    known_sorted = known.to_numpy(dtype="datetime64[ns]")[order]
    slopes, pairs, train_sorted = slopes[order], pairs[order], train_dates[order]
    step = _grid_step(train_dates, calendar)
    overlap = min(1.0, step / settings.horizon)
    dates = sorted(
        pd.Timestamp(d) for d in (predict_dates if predict_dates is not None else ranked["date"].unique())
    )
    fits: dict[pd.Timestamp, DateFit] = {}
    for day in dates:
        usable = int(np.searchsorted(known_sorted, np.datetime64(day, "ns"), side="right"))
        used_pairs = int(pairs[:usable].sum())
        if usable < settings.min_dates or used_pairs < settings.min_pairs or usable < 2:
            fits[day] = DateFit(day, "prior", used_pairs, usable, None, {})
            continue
        weights, t = fitted_weights(slopes[:usable], usable * overlap, settings.t_keep)
        fits[day] = DateFit(
            day, "fitted", used_pairs, usable, pd.Timestamp(train_sorted[:usable].max()),
            {f: float(w) for f, w in zip(features, weights, strict=True)},
            {f: (float(v) if np.isfinite(v) else None) for f, v in zip(features, t, strict=True)},
        )  # fmt: skip
    return WalkForward(_scores(ranked, features, fits, prior), fits)


def _grid_step(train_dates: pd.DatetimeIndex, calendar: np.ndarray) -> float:
    """Median spacing of the training dates in trading days (1 with fewer than two dates)."""
    if len(train_dates) < 2:
        return 1.0
    positions = np.searchsorted(calendar, np.sort(train_dates.to_numpy(dtype="datetime64[ns]")))
    return float(max(1.0, np.median(np.diff(positions))))


def _scores(
    ranked: pd.DataFrame,
    features: list[str],
    fits: dict[pd.Timestamp, DateFit],
    prior: Callable[[str, str], float],
) -> pd.DataFrame:
    """Each row's score: its date's fitted weights, or its market's prior weights."""
    rows = ranked[ranked["date"].isin(list(fits))]
    x = rows[features].to_numpy(dtype=float)
    has_any = np.isfinite(x).any(axis=1)
    x = np.nan_to_num(x, nan=0.0)
    days = list(fits)
    fitted = np.array(
        [[fit.weights.get(f, 0.0) for f in features] if fit.source == "fitted" else [np.nan] * len(features)
         for fit in fits.values()]
    ).reshape(len(days), len(features))  # fmt: skip
    day_row = pd.Index(days).get_indexer(pd.to_datetime(rows["date"]))
    weights = fitted[day_row]
    markets = rows["market"].astype(str).to_numpy()
    for market in np.unique(markets):
        by_prior = (markets == market) & np.isnan(weights[:, 0])
        weights[by_prior] = [prior(market, f) * PRIOR_SCALE for f in features]
    score = np.where(has_any, (x * weights).sum(axis=1), np.nan)
    return pd.DataFrame(
        {"date": rows["date"].to_numpy(), "symbol": rows["symbol"].to_numpy(), "score": score}
    )
