"""Calibration: Brier score, its Murphy decomposition, ECE, skill and the reliability table."""

from __future__ import annotations

import pytest

from stockdesk.evaluation.application.scores import calibration, probability_up

# Twelve verdicts whose probability is constant within each bucket:
#   SELL c=.9 -> p=.1 (bucket [0,.2)),  2 points, outcomes 0, 1      -> obar_0 = .5
#   HOLD      -> p=.5 (bucket [.4,.6)), 4 points, outcomes 1, 1, 0, 0 -> obar_2 = .5
#   BUY c=.7  -> p=.7 (bucket [.6,.8)), 4 points, outcomes 1, 1, 1, 0 -> obar_3 = .75
#   BUY c=1   -> p=1  (bucket [.8,1]),  2 points, outcomes 1, 1       -> obar_4 = 1
#   bucket [.2,.4) is empty.  N = 12, obar = 8/12 = 2/3.
# Brier = (.01 + .81  +  4 * .25  +  3 * .09 + .49  +  0) / 12 = 2.58 / 12 = .215
# REL = (2 * .4^2 + 4 * 0 + 4 * .05^2 + 2 * 0) / 12 = (.32 + .01) / 12 = .0275
# RES = (2 (1/6)^2 + 4 (1/6)^2 + 4 (1/12)^2 + 2 (1/3)^2) / 12 = (15/36) / 12 = 15/432
# UNC = 2/3 * 1/3 = 2/9
# REL - RES + UNC = .0275 - .0347222 + .2222222 = .215 = Brier (exact: constant p per bucket)
# ECE = (2 * .4 + 0 + 4 * .05 + 0) / 12 = 1/12
# skill = 1 - .215 / (2/9) = 1 - .9675 = .0325
ACTIONS = ["SELL"] * 2 + ["HOLD"] * 4 + ["BUY"] * 4 + ["BUY"] * 2
CONFIDENCE = [0.9] * 2 + [0.3] * 4 + [0.7] * 4 + [1.0] * 2
OUTCOME = [0, 1, *[1, 1, 0, 0], *[1, 1, 1, 0], 1, 1]


def test_probability_up_maps_actions() -> None:
    assert list(probability_up(["BUY", "sell", "HOLD"], [0.8, 0.8, 0.8])) == pytest.approx([0.8, 0.2, 0.5])
    with pytest.raises(ValueError, match="unknown actions"):
        probability_up(["STRONG BUY"], [0.8])


def test_brier_decomposition_is_exact_with_constant_probability_per_bucket() -> None:
    result = calibration(probability_up(ACTIONS, CONFIDENCE), OUTCOME)
    assert result.count == 12
    assert result.base_rate == pytest.approx(2 / 3)
    assert result.brier == pytest.approx(0.215, abs=1e-12)
    assert result.reliability == pytest.approx(0.0275, abs=1e-12)
    assert result.resolution == pytest.approx(15 / 432, abs=1e-12)
    assert result.uncertainty == pytest.approx(2 / 9, abs=1e-12)
    assert result.within_bucket == pytest.approx(0.0, abs=1e-12)
    assert result.reliability - result.resolution + result.uncertainty == pytest.approx(
        result.brier, abs=1e-12
    )


def test_ece_and_brier_skill() -> None:
    result = calibration(probability_up(ACTIONS, CONFIDENCE), OUTCOME)
    assert result.ece == pytest.approx(1 / 12, abs=1e-12)
    assert result.brier_skill == pytest.approx(0.0325, abs=1e-12)


def test_reliability_table_rows_and_empty_bucket() -> None:
    table = calibration(probability_up(ACTIONS, CONFIDENCE), OUTCOME).table
    assert [(r.low, r.high) for r in table] == [(0.0, 0.2), (0.2, 0.4), (0.4, 0.6), (0.6, 0.8), (0.8, 1.0)]
    assert [r.count for r in table] == [2, 0, 4, 4, 2]  # p = 1.0 lands in the last bucket
    assert table[1].mean_prob is None and table[1].observed_rate is None
    assert [r.mean_prob for r in table if r.count] == pytest.approx([0.1, 0.5, 0.7, 1.0])
    assert [r.observed_rate for r in table if r.count] == pytest.approx([0.5, 0.5, 0.75, 1.0])


def test_bucket_edges_are_left_closed() -> None:
    """0.2, 0.4, 0.6 and 0.8 open their own bucket (0.6 is not pushed down by 0.6000000000000001)."""
    table = calibration([0.2, 0.4, 0.6, 0.8, 0.19999], [1, 1, 1, 1, 1]).table
    assert [r.count for r in table] == [1, 1, 1, 1, 1]


def test_within_bucket_shows_the_remainder_when_probabilities_vary() -> None:
    # One bucket [.6,.8) holding p = .62 and .78 with outcomes 0 and 1: pbar = .7, obar = .5.
    # Brier = (.62^2 + .22^2) / 2 = (.3844 + .0484) / 2 = .2164; REL = .2^2 = .04; RES = 0;
    # UNC = .25 -> REL - RES + UNC = .29.
    # Remainder = mean((p - pbar)^2) - 2 mean((p - pbar)(o - obar)) = .0064 - 2 * .04 = -.0736.
    result = calibration([0.62, 0.78], [0, 1])
    assert result.brier == pytest.approx(0.2164)
    assert result.reliability - result.resolution + result.uncertainty == pytest.approx(0.29)
    assert result.within_bucket == pytest.approx(-0.0736)


def test_single_outcome_has_no_skill_and_empty_input_has_no_scores() -> None:
    result = calibration([0.7, 0.9], [1, 1])
    assert result.uncertainty == 0.0
    assert result.brier_skill is None
    empty = calibration([], [])
    assert empty.count == 0
    assert empty.brier is None and empty.ece is None and empty.base_rate is None
    assert [r.count for r in empty.table] == [0] * 5


def test_non_finite_points_are_left_out_and_bad_input_raises() -> None:
    assert calibration([0.7, float("nan")], [1, 0]).count == 1
    with pytest.raises(ValueError):
        calibration([1.2], [1])
    with pytest.raises(ValueError):
        calibration([0.5], [2])
