"""The technical builder's per-symbol array paths (issue 20) against the pandas definitions they
replaced, value for value: the bars read, ordered and forward-adjusted (repeated dates beyond 16
bars, where pandas' quicksort is not stable; gaps; bars after the analysis day), KDJ's rolling
range and twice-smoothed RSV, and the swing levels' centred windows."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from stockdesk.research.application.snapshot.technical_snapshot_builder import (
    adjusted_bars,
    filled_factor,
    filled_ohlc,
    kdj,
    swing_levels,
)
from stockdesk.research.domain.dtos.technical import PriceBarInput
from stockdesk.shared.finance import round_half_up

AS_OF = date(2024, 6, 28)
prices = st.floats(1, 100, allow_nan=False).map(lambda v: round(v, 1))  # rounded: ties and flat ranges
gaps = st.one_of(prices, prices, prices, st.none())


@st.composite
def bar_lists(draw: st.DrawFn) -> list[PriceBarInput]:
    """Up to 60 bars over fewer days than bars (so dates repeat), some after AS_OF, in any order."""
    count = draw(st.integers(0, 60))
    span = draw(st.integers(1, 80))
    return [
        PriceBarInput(
            trade_date=AS_OF + timedelta(days=draw(st.integers(-span, 3))),
            open=draw(gaps),
            high=draw(gaps),
            low=draw(gaps),
            close=draw(prices),
            volume=draw(st.one_of(st.none(), st.floats(0, 1e6))),
            adj_factor=draw(st.one_of(st.none(), st.sampled_from([1.0, 1.5, 2.0]))),
        )
        for _ in range(count)
    ]


def pandas_adjusted(bars: list[PriceBarInput]) -> pd.DataFrame:
    """The frame route: filter by date, sort_values, scale by the last factor, fill the gaps."""
    frame = pd.DataFrame([b.model_dump() for b in bars], columns=list(PriceBarInput.model_fields))
    frame = frame[pd.to_datetime(frame["trade_date"]) <= pd.Timestamp(AS_OF)].sort_values("trade_date")
    frame = frame.reset_index(drop=True)
    factor = filled_factor(pd.to_numeric(frame["adj_factor"]).to_numpy(dtype="float64"))
    scale = factor / factor[-1] if len(factor) else factor
    scaled = {
        c: pd.to_numeric(frame[c]).to_numpy(dtype="float64") * scale for c in ("open", "high", "low", "close")
    }
    frame["close"] = scaled["close"]
    frame["open"], frame["high"], frame["low"] = filled_ohlc(
        scaled["open"], scaled["high"], scaled["low"], scaled["close"]
    )
    frame["volume"] = pd.to_numeric(frame["volume"]).fillna(0.0).astype("float64")
    return frame


@settings(max_examples=200, deadline=None)
@given(bar_lists())
def test_adjusted_bars_equal_the_sorted_frame(bars: list[PriceBarInput]) -> None:
    got, want = adjusted_bars(bars, AS_OF), pandas_adjusted(bars)
    assert got.dates == want["trade_date"].tolist()
    for column in ("open", "high", "low", "close", "volume"):
        np.testing.assert_array_equal(getattr(got, column), want[column].to_numpy(), err_msg=column)


def pandas_kdj(high: np.ndarray, low: np.ndarray, close: np.ndarray) -> tuple[float, float]:
    frame = pd.DataFrame({"high": high, "low": low, "close": close})
    lowest, highest = frame["low"].rolling(9).min(), frame["high"].rolling(9).max()
    rsv = ((frame["close"] - lowest) / (highest - lowest).replace(0, np.nan) * 100).fillna(50.0)
    k = rsv.ewm(alpha=1 / 3, adjust=False).mean()
    d = k.ewm(alpha=1 / 3, adjust=False).mean()
    return float(k.iloc[-1]), float(d.iloc[-1])


@settings(max_examples=200, deadline=None)
@given(st.lists(prices, min_size=9, max_size=300), st.sampled_from([0.0, 0.01, 0.05]))
def test_kdj_equals_pandas_rolling_and_ewm(closes: list[float], spread: float) -> None:
    close = np.array(closes)
    high, low = close * (1 + spread), close * (1 - spread)  # spread 0: flat ranges, RSV 50
    assert kdj(high, low, close) == pandas_kdj(high, low, close)  # exact, not approximate


def pandas_swings(high: np.ndarray, low: np.ndarray, close: float) -> tuple[list[float], list[float]]:
    window = pd.DataFrame({"high": high, "low": low}).tail(120)
    highs = window["high"][window["high"] == window["high"].rolling(11, center=True).max()]
    lows = window["low"][window["low"] == window["low"].rolling(11, center=True).min()]
    resistance = sorted({round_half_up(v, 2) for v in highs if v > close})[:3]
    return sorted({round_half_up(v, 2) for v in lows if v < close}, reverse=True)[:3], resistance


@settings(max_examples=200, deadline=None)
@given(st.lists(prices, max_size=200), prices)
def test_swing_levels_equal_pandas_centred_windows(closes: list[float], price: float) -> None:
    close = np.array(closes, dtype="float64")
    high, low = close + 0.5, close - 0.5
    assert swing_levels(high, low, price) == pandas_swings(high, low, price)


def test_a_hand_made_swing() -> None:
    # 23 bars: highs rise 1..12 then fall 11..1; the peak (12) has 5 lower bars on each side, so it is
    # the one swing high; lows are highs - 2, the valley edges are not confirmed (too near either end)
    highs = np.array([*range(1, 13), *range(11, 0, -1)], dtype="float64")
    support, resistance = swing_levels(highs, highs - 2, close=6.0)
    assert resistance == [12.0] and support == []
