"""The screen's matrix indicators against TA-Lib per row, and its rounding against round_half_up.

Series of different lengths share one matrix; each one's last SMA must be TA-Lib's to
the bit (moving averages of cent prices often lie on a half, where a last-bit difference would round
the other way), RSI and MACD within float noise.
"""

from __future__ import annotations

import numpy as np
import talib
from hypothesis import given, settings
from hypothesis import strategies as st

from stockdesk.research.application.screen.indicators import macd_last, rsi_last, sma_last
from stockdesk.research.application.screen.price_matrix import PriceMatrix
from stockdesk.research.application.screen.rounding import rounded
from stockdesk.research.application.snapshot.technical_snapshot_builder import MA_PERIODS
from stockdesk.shared.finance import round_half_up


def matrix_of(series: list[np.ndarray]) -> PriceMatrix:
    """Series of different lengths as the screen lays them out: a column each, from position 0."""
    counts = np.array([len(s) for s in series])
    close = np.full((counts.max(initial=0), len(series)), np.nan)
    for column, values in enumerate(series):
        close[: len(values), column] = values
    return PriceMatrix(close, counts, np.full(len(series), np.datetime64("NaT"), dtype="datetime64[D]"))


def random_series(seed: int, count: int, longest: int = 380) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, longest + 1, count)
    scale = rng.choice([1.0, 1.37], count)  # 1.37: forward-adjusted prices leave the cent grid
    return [
        np.round(20 * np.exp(np.cumsum(rng.normal(0, 0.02, n))), 2) * k
        for n, k in zip(lengths, scale, strict=True)
    ]


def last_or_nan(values: np.ndarray) -> float:
    return float(values[-1]) if len(values) else float("nan")


def test_sma_of_each_row_is_talibs_last_value_to_the_bit() -> None:
    series = random_series(1, 300)
    averages = sma_last(matrix_of(series), MA_PERIODS)
    for row, values in enumerate(series):
        for period in MA_PERIODS:
            want = talib.SMA(values, period)[-1] if len(values) >= period else np.nan
            got = averages[period][row]
            assert got == want or (np.isnan(want) and np.isnan(got)), (row, period, got, want)


def test_rsi_and_macd_of_each_row_match_talib_within_float_noise() -> None:
    series = random_series(2, 300)
    matrix = matrix_of(series)
    rsi = rsi_last(matrix)
    dif, dea, hist = macd_last(matrix)
    for row, values in enumerate(series):
        want_rsi = talib.RSI(values, 14)[-1] if len(values) > 14 else np.nan
        np.testing.assert_allclose(rsi[row], want_rsi, rtol=0, atol=1e-9)
        wanted = talib.MACD(values, 12, 26, 9) if len(values) >= 34 else (np.full(1, np.nan),) * 3
        for got, want in zip((dif[row], dea[row], hist[row]), wanted, strict=True):
            np.testing.assert_allclose(got, last_or_nan(want), rtol=0, atol=1e-9)


def test_rsi_of_a_flat_series_is_zero_as_talib_gives_it() -> None:
    assert rsi_last(matrix_of([np.full(30, 12.5)]))[0] == talib.RSI(np.full(30, 12.5), 14)[-1] == 0.0


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(-1e6, 1e6, allow_nan=False),
            st.integers(-(10**6), 10**6).map(lambda n: n / 1000),  # halves at 2 decimals: 2.675, 0.125...
        ),
        min_size=1,
        max_size=50,
    ),
    st.integers(0, 4),
)
def test_rounding_equals_round_half_up_on_every_value(values: list[float], digits: int) -> None:
    got = rounded(np.array(values), digits)
    assert list(got) == [round_half_up(v, digits) for v in values]


def test_rounding_leaves_missing_and_infinite_values_empty() -> None:
    assert np.isnan(rounded(np.array([np.nan, np.inf, -np.inf]))).all()
