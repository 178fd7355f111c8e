"""Cutting a backtest window into in-sample, validation and holdout periods by trading days.

The plan comes from the trading calendar alone (which days exist), never from prices, so the
holdout's prices cannot influence it. Fixed mode: the first `in_sample` share of the days, then
`validation`, then the rest is the holdout. Walk-forward mode keeps the holdout and rolls the rest:
with k folds the validation share is cut into k back-to-back windows of V days, and each is
preceded by an in-sample window of the same length L (= selection days - k V), so fold i reads
days [iV, iV + L) in-sample and [iV + L, (i + 1)V + L) for validation.
"""

from __future__ import annotations

import pandas as pd

from stockdesk.strategy_lab.domain.dtos import Fold, Period, SplitConfig, SplitPlan
from stockdesk.strategy_lab.domain.errors import InvalidBacktestWindowError

MIN_PERIOD_DAYS = 20  # a Sharpe ratio over fewer trading days says nothing


def plan_splits(days: pd.DatetimeIndex, config: SplitConfig) -> SplitPlan:
    """The periods over `days` (the window's trading days, sorted); raises when one would be too short."""
    n = len(days)
    n_in = round(n * config.in_sample)
    n_val = round(n * config.validation)
    n_hold = n - n_in - n_val
    if config.mode == "fixed":
        spans = [(0, n_in, n_in, n_in + n_val)]
    else:
        width = n_val // config.folds
        length = n_in + n_val - config.folds * width
        spans = [
            (i * width, i * width + length, i * width + length, (i + 1) * width + length)
            for i in range(config.folds)
        ]
        n_val = width
    shortest = min(n_in if config.mode == "fixed" else spans[0][1] - spans[0][0], n_val, n_hold)
    if shortest < MIN_PERIOD_DAYS:
        raise InvalidBacktestWindowError(
            f"the window has {n} trading days: too few to split {config.mode.replace('_', '-')} into "
            f"in-sample {config.in_sample:.0%}, validation {config.validation:.0%}"
            + (f" in {config.folds} folds" if config.mode == "walk_forward" else "")
            + f" and holdout {config.holdout:.0%} of at least {MIN_PERIOD_DAYS} days each: "
            "widen --from/--to or change the split"
        )
    folds = [Fold(in_sample=_period(days, a, b), validation=_period(days, c, d)) for a, b, c, d in spans]
    return SplitPlan(mode=config.mode, folds=folds, holdout=_period(days, n - n_hold, n))


def _period(days: pd.DatetimeIndex, first: int, stop: int) -> Period:
    return Period(start=days[first].date(), end=days[stop - 1].date(), days=stop - first)
