"""Overfitting statistics of a strategy search: deflated Sharpe ratio and probability of backtest overfitting.

The strategy lab picks a champion out of many LLM-proposed trials, so the champion's Sharpe is a maximum
over trials and overstates what it will earn. Two published corrections are computed here, following
the papers exactly (pure numpy + `statistics.NormalDist`, no scipy):

- Bailey, D. H. & López de Prado, M. (2014), "The Deflated Sharpe Ratio: Correcting for Selection Bias,
  Backtest Overfitting and Non-Normality", Journal of Portfolio Management 40(5), 94-107.
  PSR(SR*) = Phi((SR - SR*) sqrt(T - 1) / sqrt(1 - g3 SR + (g4 - 1) / 4 SR^2)) and
  SR0 = sqrt(V[SR_n]) ((1 - gamma) Phi^-1(1 - 1/N) + gamma Phi^-1(1 - 1/(N e))); DSR = PSR(SR0).
  All Sharpe ratios are per period (never annualised); g3 is the skewness and g4 the non-excess kurtosis
  of the selected strategy's returns (moment estimators m3 / m2^1.5 and m4 / m2^2, as in the paper);
  V[SR_n] is the sample variance (ddof=1) of the trials' Sharpe ratios.
- Bailey, D. H., Borwein, J. M., López de Prado, M. & Zhu, Q. J. (2017), "The Probability of Backtest
  Overfitting", Journal of Computational Finance 20(4), 39-69. Combinatorially symmetric
  cross-validation (CSCV): the T x N matrix of trial returns is cut into S contiguous blocks; every
  choice J of S/2 blocks is an in-sample set (its complement out-of-sample); the in-sample best trial's
  relative out-of-sample rank w = rank / (N + 1) gives a logit ln(w / (1 - w)); PBO is the share of
  logits <= 0 (the selected trial did no better than the out-of-sample median).

Conventions (documented choices where the papers leave room):
- A Sharpe ratio is mean / std (ddof=1) and 0 when std <= 1e-12, the same rule as
  `shared.execution.performance`, so that constant series never produce absurd ratios.
- Zero-variance returns have skewness 0 and kurtosis 3 (the normal values) for the DSR.
- A PSR whose variance term 1 - g3 SR + (g4 - 1) / 4 SR^2 is <= 0 is undefined: ValueError. Moments of
  real data satisfy g4 >= 1 + g3^2, which makes the term >= (1 - g3 SR / 2)^2 >= 0, so only
  inconsistent inputs (or the exact two-point boundary) reach it.
- CSCV drops the T mod S oldest rows so that every block has the same length and the most recent data
  are kept. Out-of-sample ties get the average rank; in-sample ties are resolved against the selection
  (the tied trial with the worst out-of-sample rank), so PBO never depends on the order of the columns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from statistics import NormalDist

import numpy as np
import pandas as pd

EULER_MASCHERONI = 0.5772156649015329
NOISE = 1e-12  # a standard deviation at or below this is zero (same rule as shared.execution.performance)
_NORMAL = NormalDist()


@dataclass(frozen=True)
class DeflatedSharpe:
    """The DSR of a selected strategy with the inputs it was computed from, for the run report."""

    deflated_sharpe: float  # DSR = PSR(SR0), a probability in [0, 1]
    sharpe: float  # the observed per-period Sharpe of the selected strategy (not annualised)
    expected_max_sharpe: float  # SR0, per period
    trials: int
    observations: int
    skewness: float
    kurtosis: float  # non-excess (normal = 3)


@dataclass(frozen=True)
class BacktestOverfitting:
    """CSCV result: PBO plus the per-combination logits (in `itertools.combinations` order of IS blocks)."""

    pbo: float  # share of CSCV splits whose in-sample best ranks at or below the OOS median (logit <= 0)
    logits: list[float]
    partitions: int  # S
    combinations: int  # C(S, S/2)
    trials: int


def probabilistic_sharpe(
    sharpe: float, benchmark_sharpe: float, observations: int, skewness: float, kurtosis: float
) -> float:
    """Probability that the true Sharpe exceeds `benchmark_sharpe`, given a track record of `observations`
    per-period returns with the given skewness and non-excess kurtosis (Bailey & López de Prado 2014)."""
    if observations < 2:
        raise ValueError(f"the probabilistic Sharpe ratio needs at least 2 observations, got {observations}")
    values = (sharpe, benchmark_sharpe, skewness, kurtosis)
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"the probabilistic Sharpe ratio needs finite inputs, got {values}")
    variance_term = 1.0 - skewness * sharpe + (kurtosis - 1.0) / 4.0 * sharpe**2
    if variance_term <= 0.0:
        raise ValueError(
            "the probabilistic Sharpe ratio is undefined: 1 - skewness*SR + (kurtosis-1)/4*SR^2 = "
            f"{variance_term:.6g} <= 0 (SR={sharpe:.6g}, skewness={skewness:.6g}, kurtosis={kurtosis:.6g})"
        )
    z = (sharpe - benchmark_sharpe) * math.sqrt(observations - 1) / math.sqrt(variance_term)
    return _NORMAL.cdf(z)


def expected_max_sharpe(sharpe_variance: float, trials: int) -> float:
    """SR0: the expected maximum per-period Sharpe of `trials` independent zero-skill trials whose Sharpe
    ratios have variance `sharpe_variance`. One trial (no selection) or no dispersion gives 0."""
    if trials < 1:
        raise ValueError(f"the expected maximum Sharpe needs at least 1 trial, got {trials}")
    if not math.isfinite(sharpe_variance) or sharpe_variance < 0.0:
        raise ValueError(f"the trials' Sharpe variance must be finite and >= 0, got {sharpe_variance}")
    if trials == 1 or sharpe_variance == 0.0:
        return 0.0
    gamma = EULER_MASCHERONI
    quantiles = (1.0 - gamma) * _NORMAL.inv_cdf(1.0 - 1.0 / trials) + gamma * _NORMAL.inv_cdf(
        1.0 - 1.0 / (trials * math.e)
    )
    return math.sqrt(sharpe_variance) * quantiles


def deflated_sharpe(returns: np.ndarray | pd.Series, trial_sharpes: Sequence[float]) -> DeflatedSharpe:
    """DSR of the selected strategy: its PSR against SR0 of the run's N = len(trial_sharpes) trials.

    `returns` are the selected strategy's per-period returns on the period it was selected on (NaN, e.g. a
    leading pct_change gap, are dropped; inf is an error); `trial_sharpes` are the per-period Sharpe ratios
    of ALL trials, the selected one included.
    """
    values = np.asarray(returns, dtype="float64").ravel()
    values = values[~np.isnan(values)]
    if not np.isfinite(values).all():
        raise ValueError("the selected strategy's returns contain infinite values")
    if values.size < 2:
        raise ValueError(f"the deflated Sharpe ratio needs at least 2 returns, got {values.size}")
    sharpes = np.asarray(trial_sharpes, dtype="float64").ravel()
    if sharpes.size < 1:
        raise ValueError("the deflated Sharpe ratio needs the Sharpe ratios of at least 1 trial")
    if not np.isfinite(sharpes).all():
        raise ValueError("the trials' Sharpe ratios must all be finite")
    sharpe = _sharpe(values)
    skewness, kurtosis = _moments(values)
    variance = float(np.var(sharpes, ddof=1)) if sharpes.size > 1 else 0.0
    sr0 = expected_max_sharpe(variance, int(sharpes.size))
    return DeflatedSharpe(
        deflated_sharpe=probabilistic_sharpe(sharpe, sr0, int(values.size), skewness, kurtosis),
        sharpe=sharpe,
        expected_max_sharpe=sr0,
        trials=int(sharpes.size),
        observations=int(values.size),
        skewness=skewness,
        kurtosis=kurtosis,
    )


def partitions_for(observations: int, preferred: int = 16) -> int:
    """The largest even S <= `preferred` that leaves at least 20 rows per block; 2 when none does (CSCV
    then still needs 2 rows per block, checked by `probability_of_backtest_overfitting`)."""
    top = preferred - preferred % 2
    for s in range(top, 1, -2):
        if observations // s >= 20:
            return s
    return 2


def probability_of_backtest_overfitting(
    returns: np.ndarray | pd.DataFrame, partitions: int = 16
) -> BacktestOverfitting:
    """PBO by CSCV over a T x N matrix (rows = periods, columns = trials), metric = per-period Sharpe.

    Per-block sums and sums of squares are computed once; every combination's in-sample and out-of-sample
    Sharpe ratios follow from them, vectorised over combinations and trials.
    """
    matrix = np.ascontiguousarray(np.asarray(returns, dtype="float64"))
    if matrix.ndim != 2:
        raise ValueError(f"CSCV needs a 2-D periods x trials matrix, got {matrix.ndim} dimension(s)")
    rows, trials = matrix.shape
    if trials < 2:
        raise ValueError(f"CSCV needs at least 2 trials (columns), got {trials}")
    if not np.isfinite(matrix).all():
        raise ValueError("CSCV needs finite returns; fill or drop missing periods first")
    if partitions < 2 or partitions % 2:
        raise ValueError(f"CSCV needs an even number of partitions >= 2, got {partitions}")
    block = rows // partitions
    if block < 2:
        raise ValueError(
            f"CSCV with {partitions} partitions needs {2 * partitions} rows (2 per block), got {rows}"
        )
    kept = matrix[rows - block * partitions :]  # the T mod S oldest rows are dropped
    # Centering each column first keeps the variance exact for flat stretches (no sum^2 cancellation).
    column_mean = kept.mean(axis=0)
    blocks = (kept - column_mean).reshape(partitions, block, trials)
    block_sum = blocks.sum(axis=1)  # S x N
    block_sq = (blocks**2).sum(axis=1)  # S x N
    in_sample = np.array(list(combinations(range(partitions), partitions // 2)), dtype="int64")
    mask = np.zeros((len(in_sample), partitions), dtype=bool)
    mask[np.arange(len(in_sample))[:, None], in_sample] = True
    n = block * partitions // 2  # rows in each of in-sample and out-of-sample
    is_metric = _combined_sharpe(mask, block_sum, block_sq, column_mean, n)
    oos_metric = _combined_sharpe(~mask, block_sum, block_sq, column_mean, n)
    best = is_metric.max(axis=1, keepdims=True)
    # In-sample ties are resolved against the selection: the tied trial with the lowest OOS metric.
    chosen = np.where(is_metric == best, oos_metric, np.inf).min(axis=1, keepdims=True)
    below = (oos_metric < chosen).sum(axis=1)
    equal = (oos_metric == chosen).sum(axis=1)
    rank = below + (equal + 1) / 2.0  # average rank, 1 = worst .. N = best
    w = rank / (trials + 1)
    logits = np.log(w / (1.0 - w))
    return BacktestOverfitting(
        pbo=float(np.mean(logits <= 0.0)),
        logits=[float(v) for v in logits],
        partitions=partitions,
        combinations=len(in_sample),
        trials=trials,
    )


def _combined_sharpe(
    mask: np.ndarray, block_sum: np.ndarray, block_sq: np.ndarray, column_mean: np.ndarray, n: int
) -> np.ndarray:
    """Combinations x trials Sharpe ratios of the union of the masked blocks, from centered block sums.

    Blocks are added one at a time (not by a matrix product) so every column goes through the same
    floating-point operations: results do not depend on the order of the trials.
    """
    total = np.zeros((mask.shape[0], block_sum.shape[1]))
    squares = np.zeros_like(total)
    for b in range(mask.shape[1]):
        chosen = mask[:, b, None]
        total += np.where(chosen, block_sum[b], 0.0)
        squares += np.where(chosen, block_sq[b], 0.0)
    mean = column_mean + total / n
    std = np.sqrt(np.clip((squares - total**2 / n) / (n - 1), 0.0, None))
    safe = np.where(std > NOISE, std, 1.0)
    return np.where(std > NOISE, mean / safe, 0.0)


def _sharpe(values: np.ndarray) -> float:
    std = float(values.std(ddof=1))
    return float(values.mean()) / std if std > NOISE else 0.0


def _moments(values: np.ndarray) -> tuple[float, float]:
    """Skewness m3 / m2^1.5 and non-excess kurtosis m4 / m2^2; (0, 3) for a constant series."""
    deviations = values - values.mean()
    m2 = float(np.mean(deviations**2))
    if math.sqrt(m2) <= NOISE:
        return 0.0, 3.0
    return float(np.mean(deviations**3)) / m2**1.5, float(np.mean(deviations**4)) / m2**2
