"""Paired moving-block bootstrap over evaluation dates, and the report's three statistics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stockdesk.evaluation.application.scores import (
    MeanExcess,
    bootstrap_difference,
    date_counts,
    default_block,
    hit_rate,
    mean_excess,
    mean_rank_ic,
    moving_block_indices,
)

SEED = 7


def _points(n_dates: int, n_symbols: int, skill: float, seed: int) -> pd.DataFrame:
    """Synthetic verdicts: `skill` 1 means the action follows the excess return, 0 means noise."""
    rng = np.random.default_rng(seed)
    dates = pd.bdate_range("2024-01-01", periods=n_dates)
    excess = rng.normal(0.0, 0.05, n_dates * n_symbols)
    score = skill * excess + rng.normal(0.0, 0.05, len(excess))
    return pd.DataFrame(
        {
            "as_of": np.repeat(dates, n_symbols),
            "symbol": np.tile([f"S{k}" for k in range(n_symbols)], n_dates),
            "action": np.where(score > 0.02, "BUY", np.where(score < -0.02, "SELL", "HOLD")),
            "confidence": rng.uniform(0.5, 1.0, len(excess)),
            "forward_return": excess + 0.005,
            "excess_return": excess,
        }
    )


def test_statistics_on_a_points_frame() -> None:
    points = pd.DataFrame(
        {
            "as_of": ["2024-01-02"] * 5 + ["2024-01-03"] * 2,
            "action": ["BUY", "BUY", "HOLD", "SELL", "SELL", "BUY", "SELL"],
            "confidence": [0.9, 0.6, 0.5, 0.6, 0.8, 0.7, 0.7],
            "forward_return": [0.05, -0.01, 0.04, -0.02, -0.04, 0.01, np.nan],
            "excess_return": [0.04, 0.02, 0.0, -0.01, -0.03, 0.02, np.nan],
        }
    )
    # Hits (known returns only): BUY .05 y, BUY -.01 n, HOLD .04 n, SELL -.02 y, SELL -.04 y, BUY .01 y.
    assert hit_rate(points) == pytest.approx(4 / 6)
    assert mean_excess(points) == pytest.approx(0.04 / 6)
    assert MeanExcess(actions=("BUY",))(points) == pytest.approx(0.08 / 3)
    # Only 2024-01-02 has 5 symbols: signal .9, .6, 0, -.6, -.8 ranks excess perfectly.
    assert mean_rank_ic(points) == pytest.approx(1.0)
    assert np.isnan(mean_rank_ic(points.iloc[5:]))


def test_default_block_is_cube_root() -> None:
    assert [default_block(n) for n in (0, 1, 7, 8, 40, 100)] == [1, 1, 2, 2, 3, 5]


def test_moving_block_indices_follow_the_rng_draws() -> None:
    indices = moving_block_indices(5, 2, 4, np.random.default_rng(SEED))
    starts = np.random.default_rng(SEED).integers(0, 4, size=(4, 3))  # ceil(5/2) blocks, starts 0..3
    expected = np.column_stack([starts[:, 0], starts[:, 0] + 1, starts[:, 1], starts[:, 1] + 1, starts[:, 2]])
    assert (indices == expected).all()
    counts = date_counts(indices, 5)
    assert (counts.sum(axis=1) == 5).all()
    assert (counts[0] == np.bincount(indices[0], minlength=5)).all()


def test_same_seed_gives_the_same_interval() -> None:
    mode, base = _points(20, 8, 1.0, 1), _points(20, 8, 0.0, 2)
    first = bootstrap_difference(mode["as_of"], mode, base, hit_rate, resamples=200, seed=SEED)
    again = bootstrap_difference(mode["as_of"], mode, base, hit_rate, resamples=200, seed=SEED)
    other = bootstrap_difference(mode["as_of"], mode, base, hit_rate, resamples=200, seed=SEED + 1)
    assert first == again
    assert (other.low, other.high) != (first.low, first.high)
    assert first.resamples == 200 and first.dates == 20 and first.block == 3


def test_a_mode_identical_to_the_baseline_is_not_distinguishable() -> None:
    base = _points(20, 8, 0.5, 3)
    for statistic in (hit_rate, mean_rank_ic, mean_excess):
        result = bootstrap_difference(base["as_of"], base.copy(), base, statistic, resamples=300)
        assert (result.observed, result.low, result.high) == (0.0, 0.0, 0.0)
        assert result.distinguishable is False


def test_a_clearly_better_mode_is_distinguishable() -> None:
    mode, base = _points(40, 30, 1.0, 4), _points(40, 30, 0.0, 5)
    for statistic in (hit_rate, mean_rank_ic):
        result = bootstrap_difference(mode["as_of"], mode, base, statistic, resamples=500)
        assert result.observed > 0
        assert 0 < result.low <= result.observed <= result.high
        assert result.distinguishable is True


def test_one_resample_matches_a_manual_recomputation() -> None:
    """3 dates, block 1, one resample: the interval collapses onto that resample's difference."""
    days = ["2024-02-01", "2024-02-02", "2024-02-05"]
    mode_excess = {days[0]: [0.01, 0.03], days[1]: [0.02], days[2]: [-0.04, 0.0, 0.05]}
    base_excess = {days[0]: [0.0], days[1]: [0.01, 0.01], days[2]: [-0.01]}

    def frame(values: dict[str, list[float]]) -> pd.DataFrame:
        rows = [(day, x) for day, xs in values.items() for x in xs]
        return pd.DataFrame(
            {
                "as_of": [d for d, _ in rows],
                "action": "BUY",
                "confidence": 0.6,
                "forward_return": [x for _, x in rows],
                "excess_return": [x for _, x in rows],
            }
        )

    drawn = np.random.default_rng(SEED).integers(0, 3, size=(1, 3))[0]  # block 1: starts are the dates
    mode_pool = [x for k in drawn for x in mode_excess[days[k]]]  # a date drawn twice counts twice
    base_pool = [x for k in drawn for x in base_excess[days[k]]]
    expected = np.mean(mode_pool) - np.mean(base_pool)

    mode, base = frame(mode_excess), frame(base_excess)
    result = bootstrap_difference(days, mode, base, mean_excess, resamples=1, block=1, seed=SEED)
    assert result.low == pytest.approx(expected, abs=1e-15)
    assert result.high == pytest.approx(expected, abs=1e-15)
    assert result.observed == pytest.approx(0.07 / 6 - 0.01 / 4)  # all points: .07 over 6, .01 over 4
    assert len(set(drawn)) < 3, "this seed draws a date twice, so the test covers repeats"


def test_fast_path_equals_building_each_resample() -> None:
    """The per-date weighted sums give what recomputing the statistic on each resampled frame gives.

    A plain lambda hides `per_date`, so bootstrap_difference rebuilds every resample's points
    (a date drawn twice becomes two dates); both paths must agree resample for resample.
    """
    mode, base = _points(8, 6, 1.0, 6), _points(8, 6, 0.3, 7)
    for statistic in (hit_rate, mean_rank_ic, mean_excess):
        fast = bootstrap_difference(mode["as_of"], mode, base, statistic, resamples=40, block=2)
        slow = bootstrap_difference(
            mode["as_of"], mode, base, lambda p, s=statistic: s(p), resamples=40, block=2
        )
        assert slow.observed == pytest.approx(fast.observed, abs=1e-12)
        assert slow.low == pytest.approx(fast.low, abs=1e-12)
        assert slow.high == pytest.approx(fast.high, abs=1e-12)
        assert slow.resamples == fast.resamples


def test_no_finite_resample_gives_no_interval() -> None:
    base = _points(5, 6, 0.0, 8)
    empty = base.iloc[:0]
    result = bootstrap_difference(base["as_of"], empty, base, hit_rate, resamples=50)
    assert result.observed is None
    assert result.low is None and result.high is None
    assert result.resamples == 0
    assert result.distinguishable is False
    assert bootstrap_difference([], base, base, hit_rate).dates == 0


def test_bad_arguments_raise() -> None:
    base = _points(5, 6, 0.0, 8)
    with pytest.raises(ValueError):
        bootstrap_difference(base["as_of"], base, base, hit_rate, resamples=0)
    with pytest.raises(ValueError):
        bootstrap_difference(base["as_of"], base, base, hit_rate, block=0)
    with pytest.raises(ValueError):
        bootstrap_difference(base["as_of"], base, base, hit_rate, alpha=1.0)
