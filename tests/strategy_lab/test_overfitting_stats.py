"""Deflated Sharpe ratio and PBO (CSCV) against the papers' worked example and hand-built matrices."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from stockdesk.strategy_lab.application.overfitting import (
    deflated_sharpe,
    expected_max_sharpe,
    partitions_for,
    probabilistic_sharpe,
    probability_of_backtest_overfitting,
)

# --- deflated Sharpe ratio -------------------------------------------------------------------------


def test_paper_numerical_example() -> None:
    # Bailey & López de Prado (2014), JPM 40(5), section "A numerical example": N = 100 trials, variance of
    # the trials' annualised Sharpe ratios 1/2, best annualised SR 2.5, T = 1250 daily observations,
    # skewness -3, kurtosis 10, 250 days a year. Per day: V = 0.5 / 250 = 0.002, SR = 2.5 / sqrt(250)
    # = 0.158114. The paper reports SR0 ~ 0.1132 per day (1.7894 annualised) and DSR ~ 0.9004.
    sr0 = expected_max_sharpe(0.5 / 250, 100)
    assert sr0 == pytest.approx(0.1132, abs=1e-3)
    assert sr0 * math.sqrt(250) == pytest.approx(1.7894, abs=1e-3)
    dsr = probabilistic_sharpe(2.5 / math.sqrt(250), sr0, 1250, -3.0, 10.0)
    assert dsr == pytest.approx(0.9004, abs=1e-3)


def test_psr_equals_one_half_when_sharpe_equals_benchmark() -> None:
    # z = (SR - SR*) ... = 0 -> Phi(0) = 0.5, whatever the moments
    assert probabilistic_sharpe(0.2, 0.2, 60, -1.5, 7.0) == pytest.approx(0.5)


def test_psr_normal_returns_worked_number() -> None:
    # SR 0.1, SR* 0, T 101, skew 0, kurt 3: term 1 - 0 + (3-1)/4 * 0.01 = 1.005
    # z = 0.1 * sqrt(100) / sqrt(1.005) = 1 / 1.0024969 = 0.997509; Phi(0.997509) = 0.84074
    assert probabilistic_sharpe(0.1, 0.0, 101, 0.0, 3.0) == pytest.approx(0.84074, abs=1e-4)


def test_psr_penalises_negative_skew_and_fat_tails() -> None:
    normal = probabilistic_sharpe(0.1, 0.0, 101, 0.0, 3.0)
    assert probabilistic_sharpe(0.1, 0.0, 101, -2.0, 3.0) < normal
    assert probabilistic_sharpe(0.1, 0.0, 101, 0.0, 9.0) < normal


def test_psr_with_an_undefined_variance_term_raises() -> None:
    # 1 - 3 * 1 + (1 - 1)/4 * 1 = -2 <= 0: inconsistent moments (kurtosis < 1 + skew^2)
    with pytest.raises(ValueError, match="undefined"):
        probabilistic_sharpe(1.0, 0.0, 100, 3.0, 1.0)


def test_expected_max_sharpe_grows_with_trials_and_variance() -> None:
    by_trials = [expected_max_sharpe(0.01, n) for n in (2, 5, 10, 100, 1000)]
    assert by_trials == sorted(by_trials)
    assert len(set(by_trials)) == 5
    # SR0 scales with sqrt(V): four times the variance, twice the expected maximum
    assert expected_max_sharpe(0.04, 10) == pytest.approx(2 * expected_max_sharpe(0.01, 10))
    assert expected_max_sharpe(0.04, 10) > expected_max_sharpe(0.01, 10) > 0.0


def test_expected_max_sharpe_of_one_trial_or_no_dispersion_is_zero() -> None:
    assert expected_max_sharpe(0.5, 1) == 0.0
    assert expected_max_sharpe(0.0, 50) == 0.0
    with pytest.raises(ValueError):
        expected_max_sharpe(-0.1, 10)
    with pytest.raises(ValueError):
        expected_max_sharpe(0.1, 0)


def test_deflated_sharpe_from_returns_hand_computed() -> None:
    # returns 0, 0, 0, 4: mean 1, deviations -1, -1, -1, 3
    #   std (ddof=1) = sqrt(12 / 3) = 2 -> SR = 0.5
    #   m2 = 12/4 = 3, m3 = (-3 + 27)/4 = 6, m4 = (3 + 81)/4 = 21
    #   skew = 6 / 3^1.5 = 2/sqrt(3) = 1.154701, kurt = 21 / 9 = 2.333333
    # trials' SR 0.5, 0.1, -0.3: mean 0.1, V (ddof=1) = (0.16 + 0 + 0.16) / 2 = 0.16 -> sqrt 0.4
    #   SR0 = 0.4 * (0.422784 * Phi^-1(2/3) + 0.577216 * Phi^-1(1 - 1/(3e)))
    #       = 0.4 * (0.422784 * 0.430727 + 0.577216 * 1.161783) = 0.4 * 0.852703 = 0.341081
    # term = 1 - 1.154701 * 0.5 + (2.333333 - 1)/4 * 0.25 = 0.505983 -> sqrt 0.711325
    # z = (0.5 - 0.341081) * sqrt(3) / 0.711325 = 0.386962 -> DSR = Phi(0.386962) = 0.65061
    result = deflated_sharpe(pd.Series([np.nan, 0.0, 0.0, 0.0, 4.0]), [0.5, 0.1, -0.3])
    assert result.observations == 4  # the leading NaN is dropped
    assert result.trials == 3
    assert result.sharpe == pytest.approx(0.5)
    assert result.skewness == pytest.approx(2 / math.sqrt(3))
    assert result.kurtosis == pytest.approx(7 / 3)
    assert result.expected_max_sharpe == pytest.approx(0.34108, abs=1e-4)
    assert result.deflated_sharpe == pytest.approx(0.65061, abs=1e-4)


def test_deflated_sharpe_with_one_trial_is_psr_against_zero() -> None:
    returns = np.array([0.01, -0.02, 0.03, 0.0, 0.015, -0.005])
    result = deflated_sharpe(returns, [0.3])
    assert result.expected_max_sharpe == 0.0
    expected = probabilistic_sharpe(result.sharpe, 0.0, 6, result.skewness, result.kurtosis)
    assert result.deflated_sharpe == pytest.approx(expected)
    assert result.deflated_sharpe > 0.5  # positive mean -> PSR(0) above one half


def test_deflated_sharpe_of_flat_returns_has_zero_sharpe() -> None:
    # zero variance: SR 0, skew 0, kurt 3; one trial -> SR0 0 -> Phi(0) = 0.5
    result = deflated_sharpe(np.full(10, 0.001), [0.0])
    assert (result.sharpe, result.skewness, result.kurtosis) == (0.0, 0.0, 3.0)
    assert result.deflated_sharpe == pytest.approx(0.5)


def test_more_trials_deflate_more() -> None:
    rng = np.random.default_rng(7)
    returns = rng.normal(0.001, 0.01, 500)
    few = deflated_sharpe(returns, [0.1, 0.05, -0.02])
    many = deflated_sharpe(returns, [0.1, 0.05, -0.02] * 20)
    assert many.expected_max_sharpe > few.expected_max_sharpe
    assert many.deflated_sharpe < few.deflated_sharpe


# --- probability of backtest overfitting (CSCV) -----------------------------------------------------


def blocks_of_two(*means: float) -> np.ndarray:
    """Each block is the two rows m - 1, m + 1: block mean m, within-block deviation 1."""
    return np.array([[m - 1.0, m + 1.0] for m in means]).ravel()


# S = 4 blocks of 2 rows, 3 trials with block means  X (0,0,0,1), Y (1,1,1,1), Z (2,2,0,0).
# Any IS or OOS set is 2 blocks a, b = 4 rows m_a +- 1, m_b +- 1: mu = (m_a + m_b)/2, h = (m_a - m_b)/2,
# squared deviations sum to 4 h^2 + 4, so SR = mu / sqrt(4 (1 + h^2) / 3):
#   mu 0        -> 0
#   mu 0.5 h 0.5 -> 0.5 / sqrt(5/3) = 0.3873      (X on {0,3} {1,3} {2,3})
#   mu 1 h 0    -> 1 / sqrt(4/3)    = 0.8660      (Y everywhere)
#   mu 1 h 1    -> 1 / sqrt(8/3)    = 0.6124      (Z on mixed pairs)
#   mu 2 h 0    -> 2 / sqrt(4/3)    = 1.7321      (Z on {0,1}); Z on {2,3}: mu 0 -> 0
# IS J    IS SR (X, Y, Z)      winner  OOS     OOS SR (X, Y, Z)     rank  w    logit
# {0,1}   0,     .866, 1.732   Z       {2,3}   .387, .866, 0        1     1/4  ln(1/3)
# {0,2}   0,     .866, .612    Y       {1,3}   .387, .866, .612     3     3/4  ln 3
# {0,3}   .387,  .866, .612    Y       {1,2}   0,    .866, .612     3     3/4  ln 3
# {1,2}   0,     .866, .612    Y       {0,3}   .387, .866, .612     3     3/4  ln 3
# {1,3}   .387,  .866, .612    Y       {0,2}   0,    .866, .612     3     3/4  ln 3
# {2,3}   .387,  .866, 0       Y       {0,1}   0,    .866, 1.732    2     2/4  0 (counts: at the median)
# PBO = #(logit <= 0) / 6 = 2/6
HAND = np.column_stack([blocks_of_two(0, 0, 0, 1), blocks_of_two(1, 1, 1, 1), blocks_of_two(2, 2, 0, 0)])
HAND_LOGITS = [-math.log(3), math.log(3), math.log(3), math.log(3), math.log(3), 0.0]


def test_pbo_hand_worked_four_partitions() -> None:
    result = probability_of_backtest_overfitting(HAND, partitions=4)
    assert (result.partitions, result.combinations, result.trials) == (4, 6, 3)
    assert result.logits == pytest.approx(HAND_LOGITS, abs=1e-9)
    assert result.pbo == pytest.approx(2 / 6)


def test_pbo_drops_the_oldest_remainder_rows() -> None:
    # 9 rows with S = 4: blocks of 2 and the first row dropped; a wild first row must change nothing
    frame = pd.DataFrame(np.vstack([[50.0, -50.0, 9.0], HAND]), columns=["x", "y", "z"])
    result = probability_of_backtest_overfitting(frame, partitions=4)
    assert result.logits == pytest.approx(HAND_LOGITS, abs=1e-9)
    assert result.pbo == pytest.approx(2 / 6)


def test_pbo_ties_count_against_the_selection_and_share_ranks() -> None:
    # S = 2, blocks of 2 rows m +- 1 (a block's SR = m / sqrt(2)); block means P (1, 3), Q (1, -1), R (0, 0)
    # IS {0}: P .707, Q .707 (tie), R 0; OOS {1}: P 2.121, Q -.707, R 0. The tie is resolved against the
    #   selection: Q, rank 1 -> w 1/4 -> logit ln(1/3) (taking P would give rank 3 and ln 3)
    # IS {1}: P 2.121 wins; OOS {0}: P .707, Q .707, R 0 -> P and Q share ranks 2 and 3: average 2.5
    #   -> w 2.5/4 = 0.625 -> logit ln(0.625/0.375) = ln(5/3)
    matrix = np.column_stack([blocks_of_two(1, 3), blocks_of_two(1, -1), blocks_of_two(0, 0)])
    result = probability_of_backtest_overfitting(matrix, partitions=2)
    assert result.logits == pytest.approx([math.log(1 / 3), math.log(5 / 3)])
    assert result.pbo == 0.5


def test_pbo_is_zero_when_one_trial_dominates_every_block() -> None:
    rng = np.random.default_rng(3)
    returns = rng.normal(0.0, 0.01, (240, 5))
    returns[:, 2] = 0.05 + rng.normal(0.0, 0.001, 240)  # SR ~ 50 per period against ~0 for the others
    result = probability_of_backtest_overfitting(returns, partitions=8)
    assert result.combinations == 70  # C(8, 4)
    assert result.pbo == 0.0
    # best of 5 in every OOS half: w = 5/6 -> logit ln 5
    assert result.logits == pytest.approx([math.log(5)] * 70)


def test_pbo_is_one_when_the_in_sample_winner_always_loses_out_of_sample() -> None:
    # A has block means 1, 2, 4, -7 (total 0) and B = -A. Every pair of blocks has a non-zero mean sum
    # (3, 5, -6, 6, -5, -3), and OOS mean = -IS mean (equal sizes, total 0). B = -A has the same std,
    # so SR_B = -SR_A: the IS winner is the one with a positive IS mean, hence a negative OOS mean,
    # below the other's: rank 1 of 2, w = 1/3, logit ln(1/2) < 0 in all 6 combinations.
    a = blocks_of_two(1, 2, 4, -7)
    result = probability_of_backtest_overfitting(np.column_stack([a, -a]), partitions=4)
    assert result.pbo == 1.0
    assert result.logits == pytest.approx([math.log(0.5)] * 6)


def test_pbo_of_pure_noise_is_near_one_half() -> None:
    # zero-skill trials: the IS winner's OOS rank is uniform, so PBO averages ~0.5 (one matrix is noisy,
    # so average 20 fixed seeds; the bound is loose on purpose)
    pbos = [
        probability_of_backtest_overfitting(np.random.default_rng(seed).normal(0, 0.01, (480, 40)), 8).pbo
        for seed in range(20)
    ]
    assert 0.35 < float(np.mean(pbos)) < 0.65


def test_pbo_rejects_bad_inputs() -> None:
    with pytest.raises(ValueError, match="even"):
        probability_of_backtest_overfitting(HAND, partitions=3)
    with pytest.raises(ValueError, match="2 per block"):
        probability_of_backtest_overfitting(HAND, partitions=6)  # 8 rows // 6 = 1 row per block
    with pytest.raises(ValueError, match="2 trials"):
        probability_of_backtest_overfitting(HAND[:, :1], partitions=4)
    gap = HAND.copy()
    gap[3, 1] = np.nan
    with pytest.raises(ValueError, match="finite"):
        probability_of_backtest_overfitting(gap, partitions=4)


@pytest.mark.parametrize(
    ("observations", "preferred", "expected"),
    [
        (1000, 16, 16),  # 1000 // 16 = 62 rows
        (300, 16, 14),  # 300 // 16 = 18 < 20, 300 // 14 = 21
        (100, 16, 4),  # 100 // 6 = 16 < 20, 100 // 4 = 25
        (30, 16, 2),  # even 2 leaves only 15: the minimum 2
        (400, 15, 14),  # odd preference: largest even below it
    ],
)
def test_partitions_for(observations: int, preferred: int, expected: int) -> None:
    assert partitions_for(observations, preferred) == expected


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_pbo_is_a_probability_invariant_to_column_order(data: st.DataObject) -> None:
    trials = data.draw(st.integers(2, 6))
    partitions = data.draw(st.sampled_from([2, 4, 6]))
    rows = data.draw(st.integers(2 * partitions, 40))
    matrix = data.draw(
        arrays("float64", (rows, trials), elements=st.floats(-0.125, 0.125, allow_nan=False, width=32))
    )
    order = data.draw(st.permutations(range(trials)))
    result = probability_of_backtest_overfitting(matrix, partitions)
    permuted = probability_of_backtest_overfitting(matrix[:, order], partitions)
    assert 0.0 <= result.pbo <= 1.0
    assert result.combinations == math.comb(partitions, partitions // 2) == len(result.logits)
    assert permuted.pbo == result.pbo
    assert permuted.logits == result.logits
