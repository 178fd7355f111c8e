"""Properties that hold for any input: bounds of Brier, ECE and rank IC, the decomposition's remainder."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from stockdesk.evaluation.application.scores import bucket_index, calibration, daily_ic, rank_ic

probabilities = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
forecasts = st.lists(st.tuples(probabilities, st.booleans()), min_size=1, max_size=60)


@settings(max_examples=150, deadline=None)
@given(forecasts)
def test_brier_and_ece_lie_in_unit_interval_and_the_remainder_is_the_within_bucket_terms(
    pairs: list[tuple[float, bool]],
) -> None:
    p = np.array([x for x, _ in pairs])
    o = np.array([float(y) for _, y in pairs])
    result = calibration(p, o)
    assert 0.0 <= result.brier <= 1.0
    assert 0.0 <= result.ece <= 1.0
    assert result.reliability >= 0.0 and result.resolution >= 0.0
    assert 0.0 <= result.uncertainty <= 0.25
    # Brier = REL - RES + UNC + (1/N) sum_k sum_i [(p_i - pbar_k)^2 - 2 (p_i - pbar_k)(o_i - obar_k)]
    k = bucket_index(p, 5)
    pbar = pd.Series(p).groupby(k).transform("mean").to_numpy()
    obar = pd.Series(o).groupby(k).transform("mean").to_numpy()
    remainder = np.mean((p - pbar) ** 2 - 2 * (p - pbar) * (o - obar))
    assert abs(result.within_bucket - remainder) < 1e-9
    assert sum(row.count for row in result.table) == len(p)


@settings(max_examples=100, deadline=None)
@given(forecasts)
def test_constant_probability_per_bucket_makes_the_decomposition_exact(
    pairs: list[tuple[float, bool]],
) -> None:
    midpoints = (bucket_index(np.array([x for x, _ in pairs]), 5) + 0.5) / 5
    result = calibration(midpoints, [float(y) for _, y in pairs])
    assert abs(result.within_bucket) < 1e-9


panel = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=3),
        st.integers(min_value=-3, max_value=3),  # small integer ranges force ties
        st.floats(min_value=-0.2, max_value=0.2, allow_nan=False),
    ),
    min_size=0,
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(panel)
def test_rank_ic_lies_in_unit_interval_and_matches_pandas_spearman(
    rows: list[tuple[int, int, float]],
) -> None:
    frame = pd.DataFrame(rows, columns=["day", "signal", "ret"])
    frame["as_of"] = pd.Timestamp("2024-01-01") + pd.to_timedelta(frame["day"], unit="D")
    result = rank_ic(frame["as_of"], frame["signal"], frame["ret"], min_symbols=3)
    daily = daily_ic(frame["as_of"], frame["signal"], frame["ret"], min_symbols=3)
    assert result.dates == len(daily)
    for day in result.per_date:
        assert -1.0 <= day.ic <= 1.0
        group = frame[frame["as_of"].dt.date == day.date]
        expected = group[["signal", "ret"]].corr(method="spearman").loc["signal", "ret"]
        assert abs(day.ic - expected) < 1e-9
    if result.mean is not None:
        assert -1.0 <= result.mean <= 1.0
        assert 0.0 <= result.positive_share <= 1.0
    result.model_dump_json()  # never NaN or inf
