"""TA-Lib's SMA, RSI and MACD for every symbol of a price matrix at once, last values only.

The technical snapshot calls TA-Lib on one symbol's closes; a screen has thousands. The recurrences
here are TA-Lib's own, step for step, run over bar positions for all symbols together (a loop over
~400 positions, none over symbols): every symbol's series starts at position 0 as TA-Lib's array
does, and each symbol's value is read at its last bar.
- SMA: a running total (add the new close, emit total / period, subtract the trailing close), so a
  moving average of cent prices that lies on a half rounds as TA-Lib's does;
- RSI: Wilder's average gain and loss seeded by the first 14 changes, scaled by 1/14 as the
  compiled TA-Lib does, 0 where gain + loss is within 1e-8 of zero;
- MACD(12, 26, 9): both EMAs seeded at bar 26 (the slow by the mean of bars 1-26, the fast by that
  of bars 15-26), the signal by the mean of the first 9 MACD values, then value = (x - prev) x k + prev.
RSI and MACD may differ from TA-Lib's in the last bit (its build fuses multiply-adds); the snapshots
round them to 2 and 3 decimals.
"""

from __future__ import annotations

import numpy as np

from stockdesk.research.application.screen.price_matrix import PriceMatrix

RSI_PERIOD = 14
_ZERO = 1e-8  # TA_IS_ZERO
FAST, SLOW, SIGNAL = 12, 26, 9


def sma_last(matrix: PriceMatrix, periods: tuple[int, ...]) -> dict[int, np.ndarray]:
    """Each symbol's last SMA(period); NaN with fewer bars than the period."""
    close = matrix.close
    span = np.array(periods, dtype="float64")[:, None]
    totals = np.zeros((len(periods), close.shape[1]))
    out = np.full(totals.shape, np.nan)
    for t, ending in enumerate(matrix.ending_at()):
        totals += close[t]
        if len(ending):
            out[:, ending] = totals[:, ending] / span
        for k, period in enumerate(periods):
            if t >= period - 1:
                totals[k] -= close[t - period + 1]
    return {p: np.where(matrix.counts >= p, out[k], np.nan) for k, p in enumerate(periods)}


def rsi_last(matrix: PriceMatrix, period: int = RSI_PERIOD) -> np.ndarray:
    """Each symbol's last RSI(period); NaN with `period` bars or fewer."""
    close = matrix.close
    gain, loss = np.zeros(close.shape[1]), np.zeros(close.shape[1])
    out = np.full(close.shape[1], np.nan)
    scale = 1.0 / period
    for t, ending in enumerate(matrix.ending_at()):
        if t == 0:
            continue
        change = close[t] - close[t - 1]
        falling = change < 0
        if t > period:
            loss *= period - 1.0
            gain *= period - 1.0
        np.subtract(loss, change, out=loss, where=falling)
        np.add(gain, change, out=gain, where=~falling)
        if t < period:
            continue
        loss *= scale
        gain *= scale
        if len(ending):
            total = gain[ending] + loss[ending]
            with np.errstate(divide="ignore", invalid="ignore"):
                out[ending] = np.where(np.abs(total) < _ZERO, 0.0, 100.0 * (gain[ending] / total))
    return out


def macd_last(matrix: PriceMatrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each symbol's last (DIF, DEA, histogram) of MACD(12, 26, 9); NaN below 34 bars."""
    close = matrix.close
    count = close.shape[1]
    k_slow, k_fast, k_signal = 2.0 / (SLOW + 1), 2.0 / (FAST + 1), 2.0 / (SIGNAL + 1)
    seed_at = SLOW - 1  # both EMAs start at the slow one's first value
    signal_at = seed_at + SIGNAL - 1
    slow_sum, fast_sum, macd_sum = np.zeros(count), np.zeros(count), np.zeros(count)
    slow = fast = signal = np.full(count, np.nan)
    dif, dea = np.full(count, np.nan), np.full(count, np.nan)
    for t, ending in enumerate(matrix.ending_at()):
        x = close[t]
        if t <= seed_at:
            slow_sum = slow_sum + x
            if t > seed_at - FAST:
                fast_sum = fast_sum + x
            if t < seed_at:
                continue
            slow, fast = slow_sum / SLOW, fast_sum / FAST
        else:
            slow = ((x - slow) * k_slow) + slow
            fast = ((x - fast) * k_fast) + fast
        macd = fast - slow
        if t <= signal_at:
            macd_sum = macd_sum + macd
            if t < signal_at:
                continue
            signal = macd_sum / SIGNAL
        else:
            signal = ((macd - signal) * k_signal) + signal
        dif[ending], dea[ending] = macd[ending], signal[ending]
    return dif, dea, dif - dea
