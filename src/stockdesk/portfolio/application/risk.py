"""Risk of a book held at fixed weights over a window of daily returns: the shrunk covariance the
risk budget uses, and the figures the view shows (volatility, beta, largest drawdown, concentration).

The covariance is the Ledoit-Wolf estimate (2004, "A well-conditioned estimator for large-dimensional
covariance matrices"): the sample covariance pulled towards a multiple of the identity by the
shrinkage the data support, so a window of 120 days over a few dozen names still gives a covariance
that is well conditioned. Written here in numpy (a few lines) rather than adding scikit-learn.
Cash earns nothing; a day a name did not trade counts as a zero return for it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from stockdesk.backtest.application import performance
from stockdesk.portfolio.domain.view import BookRisk

TRADING_DAYS_PER_YEAR = 252


def shrunk_covariance(returns: pd.DataFrame) -> pd.DataFrame:
    """Annualised Ledoit-Wolf covariance of the columns of `returns` (daily; NaN as 0)."""
    x = returns.fillna(0.0).to_numpy(dtype="float64")
    n, p = x.shape
    if n < 2 or p == 0:
        return pd.DataFrame(np.zeros((p, p)), index=returns.columns, columns=returns.columns)
    x = x - x.mean(axis=0)
    sample = x.T @ x / n
    mu = float(np.trace(sample)) / p
    target = mu * np.eye(p)
    delta = float(((sample - target) ** 2).sum()) / p
    spread = sum(float(((np.outer(row, row) - sample) ** 2).sum()) for row in x) / (n * n * p)
    shrinkage = 0.0 if delta <= 0 else min(spread, delta) / delta
    covariance = shrinkage * target + (1.0 - shrinkage) * sample
    return pd.DataFrame(covariance * TRADING_DAYS_PER_YEAR, index=returns.columns, columns=returns.columns)


def book_volatility(weights: Mapping[str, float], covariance: pd.DataFrame) -> float:
    """sqrt(w' Σ w), annualised as Σ is."""
    names = [s for s, w in weights.items() if w > 0 and s in covariance.index]
    if not names:
        return 0.0
    w = np.array([weights[s] for s in names])
    sigma = covariance.loc[names, names].to_numpy()
    return math.sqrt(max(float(w @ sigma @ w), 0.0))


def book_returns(weights: Mapping[str, float], returns: pd.DataFrame) -> pd.Series:
    """The book's daily returns over the window at fixed weights (the rest in cash)."""
    names = [s for s, w in weights.items() if w > 0 and s in returns.columns]
    if not names:
        return pd.Series(0.0, index=returns.index)
    w = pd.Series({s: weights[s] for s in names})
    return returns[names].fillna(0.0) @ w


def book_risk(
    weights: Mapping[str, float],
    returns: pd.DataFrame,
    covariance: pd.DataFrame,
    benchmark: pd.Series | None,
) -> BookRisk:
    """The figures of one book; `benchmark`: the benchmark's daily returns on the same days."""
    daily = book_returns(weights, returns)
    nav = pd.concat([pd.Series([1.0]), (1.0 + daily).cumprod()], ignore_index=True)
    metrics = performance(nav)
    held = np.array([w for w in weights.values() if w > 0])
    invested = float(held.sum()) if len(held) else 0.0
    hhi = float(((held / invested) ** 2).sum()) if invested > 0 else 0.0
    return BookRisk(
        volatility=book_volatility(weights, covariance),
        realised_volatility=metrics.volatility,
        beta=_beta(daily, benchmark),
        max_drawdown=metrics.max_drawdown,
        top_weight=float(held.max()) if len(held) else 0.0,
        hhi=hhi,
        effective_names=1.0 / hhi if hhi > 0 else 0.0,
        cash_weight=max(1.0 - invested, 0.0),
        invested_weight=invested,
    )


def _beta(daily: pd.Series, benchmark: pd.Series | None) -> float | None:
    if benchmark is None:
        return None
    both = pd.concat([daily, benchmark], axis=1, join="inner").dropna()
    if len(both) < 2:
        return None
    variance = float(both.iloc[:, 1].var(ddof=1))
    if variance <= 0:
        return None
    return float(both.iloc[:, 0].cov(both.iloc[:, 1])) / variance
