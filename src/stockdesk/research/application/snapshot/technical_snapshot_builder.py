"""Technical snapshot: TA-Lib indicators on forward-adjusted prices, levels and patterns in code.

Forward adjustment: price x adj_factor / latest adj_factor (latest as of the analysis date), so the
last bar keeps its traded price. A moving average needs as many bars as its period: with fewer it is
N/A, never silently a shorter one. Vectorised over one symbol's arrays (TA-Lib, numpy windows):
per-symbol frames cost more than the indicators (issue 20).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd
import talib

from stockdesk.research.domain.dtos.technical import PriceBarInput, TechnicalSnapshotDTO
from stockdesk.research.domain.dtos.valuation import NA, Num
from stockdesk.shared.finance import round_half_up

MA_PERIODS = (5, 10, 20, 60, 120, 250)
SWING_RADIUS = 5  # a swing high is the highest high within 5 bars on each side
LEVEL_LOOKBACK = 120
CROSS_LOOKBACK = 5


def filled_factor(factor: np.ndarray) -> np.ndarray:
    """adj_factor with its gaps filled forward, then backward, then 1.0 (no factor at all)."""
    if not np.isnan(factor).any():
        return factor
    return pd.Series(factor).ffill().bfill().fillna(1.0).to_numpy()


def filled_ohlc(
    open_: np.ndarray, high: np.ndarray, low: np.ndarray, close: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(open, high, low) with gaps filled: a missing open is the close, a missing high (low) the
    larger (smaller) of open and close."""
    opened = np.where(np.isnan(open_), close, open_)
    return (
        opened,
        np.where(np.isnan(high), np.fmax(opened, close), high),
        np.where(np.isnan(low), np.fmin(opened, close), low),
    )


@dataclass(frozen=True)
class AdjustedBars:
    """A symbol's bars up to the analysis day, by date, forward-adjusted, gaps filled."""

    dates: list[date]
    open: np.ndarray
    high: np.ndarray
    low: np.ndarray
    close: np.ndarray
    volume: np.ndarray
    """0 where missing"""

    def __len__(self) -> int:
        return len(self.dates)


def adjusted_bars(bars: Sequence[PriceBarInput], as_of: date) -> AdjustedBars:
    """Read straight from the records into arrays: a frame per symbol costs more than the indicators."""
    dates = [b.trade_date for b in bars]
    order = _by_date(dates, as_of)
    if order is not None:
        bars, dates = [bars[i] for i in order], [dates[i] for i in order]
    opened, high, low, close, volume, factor = (
        np.array(list(map(field, bars)), dtype="float64") for field in _PRICE_FIELDS
    )
    factor = filled_factor(factor)
    scale = factor / factor[-1] if len(factor) else factor
    close = close * scale
    opened, high, low = filled_ohlc(opened * scale, high * scale, low * scale, close)
    return AdjustedBars(dates, opened, high, low, close, np.where(np.isnan(volume), 0.0, volume))


_PRICE_FIELDS = [operator.attrgetter(f) for f in ("open", "high", "low", "close", "volume", "adj_factor")]


def _by_date(dates: list[date], as_of: date) -> list[int] | None:
    """Positions of the bars up to `as_of` by date; None when that is all of them as given. Bars
    sharing a date keep the order `sort_values` gives them (numpy's quicksort of the date objects,
    which is not stable)."""
    days = np.array([d.toordinal() for d in dates], dtype="int64")
    kept = np.flatnonzero(days <= as_of.toordinal())
    chosen = days[kept]
    if len(chosen) < 2 or bool((chosen[1:] > chosen[:-1]).all()):
        return None if len(kept) == len(days) else kept.tolist()
    order = chosen.argsort(kind="stable")
    ordered = chosen[order]
    if bool((ordered[1:] > ordered[:-1]).all()):  # distinct dates: every sort gives this order
        return kept[order].tolist()
    objects = np.array([dates[i] for i in kept.tolist()], dtype=object)
    return kept[objects.argsort(kind="quicksort")].tolist()


def adjusted_frame(bars: list[PriceBarInput], as_of: date) -> pd.DataFrame:
    """`adjusted_bars` as a frame (the price chart's rolling means read it)."""
    adjusted = adjusted_bars(bars, as_of)
    return pd.DataFrame(
        {
            "trade_date": pd.Series(adjusted.dates, dtype=object),
            "open": adjusted.open,
            "high": adjusted.high,
            "low": adjusted.low,
            "close": adjusted.close,
            "volume": adjusted.volume,
        }
    )


def moving_average(close: np.ndarray, period: int) -> float:
    """The last SMA(period); NaN with fewer bars than the period (never a shorter one)."""
    return last(talib.SMA(close, period)) if len(close) >= period else float("nan")


def rsi_series(close: np.ndarray) -> np.ndarray:
    return talib.RSI(close, 14) if len(close) > 14 else np.full(len(close), np.nan)


def macd_series(close: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(DIF, DEA, histogram) of MACD(12, 26, 9); NaN below 34 bars."""
    n = len(close)
    return talib.MACD(close, 12, 26, 9) if n >= 34 else (np.full(n, np.nan),) * 3


def atr_series(high: np.ndarray, low: np.ndarray, close: np.ndarray) -> np.ndarray:
    return talib.ATR(high, low, close, 14) if len(close) > 14 else np.full(len(close), np.nan)


def change_pct(close: np.ndarray, days: int) -> float:
    """Percent change of the last close over the close `days` bars earlier."""
    return (last(close) / close[-days - 1] - 1) * 100 if len(close) > days else float("nan")


def rule_fields(close: np.ndarray, high: np.ndarray, low: np.ndarray) -> dict[str, Num]:
    """The snapshot fields the code signal and the trade plan read, as the snapshot rounds them.

    The builder and the evaluation's batch path both call this: one definition of each number.
    """
    return {
        "close": num(last(close)),
        "change_20d_pct": num(change_pct(close, 20)),
        **{f"ma{p}": num(moving_average(close, p)) for p in (20, 60, 120)},
        "rsi14": num(last(rsi_series(close))),
        "macd_hist": num(last(macd_series(close)[2]), 3),
        "atr14": num(last(atr_series(high, low, close))),
    }


def num(value: float, digits: int = 2) -> Num:
    return round_half_up(float(value), digits) if value is not None and np.isfinite(value) else NA


def last(series: np.ndarray | pd.Series) -> float:
    values = np.asarray(series, dtype="float64")
    return float(values[-1]) if len(values) else float("nan")


def crossed_up(fast: np.ndarray, slow: np.ndarray, lookback: int) -> bool:
    diff = np.sign(np.asarray(fast) - np.asarray(slow))[-(lookback + 1) :]
    diff = diff[np.isfinite(diff)]
    return len(diff) > 1 and bool(np.any((diff[:-1] <= 0) & (diff[1:] > 0)))


def _rolling(values: np.ndarray, period: int, reduce: np.ufunc) -> np.ndarray:
    """Trailing `period`-bar max or min (np.maximum / np.minimum), NaN until full and over a NaN, as
    pandas' rolling windows: the window folded over its offsets (a dozen array ops, no copies)."""
    out = np.full(len(values), np.nan)
    if len(values) >= period:
        count = len(values) - period + 1
        folded = values[:count]
        for offset in range(1, period):
            folded = reduce(folded, values[offset : offset + count])
        out[period - 1 :] = folded
    return out


def _centred(trailing: np.ndarray) -> np.ndarray:
    """The centred window of each bar is the trailing one ending SWING_RADIUS bars later (NaN at the end)."""
    out = np.full(len(trailing), np.nan)
    out[: max(len(trailing) - SWING_RADIUS, 0)] = trailing[SWING_RADIUS:]
    return out


def swing_levels(high: np.ndarray, low: np.ndarray, close: float) -> tuple[list[float], list[float]]:
    """Nearest three swing lows below and swing highs above the close, from the last 120 bars.

    A swing needs 5 bars on both sides, so the newest bars (unconfirmed) never count.
    """
    size = 2 * SWING_RADIUS + 1
    highs, lows = high[-LEVEL_LOOKBACK:], low[-LEVEL_LOOKBACK:]
    top, bottom = _centred(_rolling(highs, size, np.maximum)), _centred(_rolling(lows, size, np.minimum))
    resistance = sorted({round_half_up(v, 2) for v in highs[highs == top].tolist() if v > close})[:3]
    support = sorted({round_half_up(v, 2) for v in lows[lows == bottom].tolist() if v < close}, reverse=True)[
        :3
    ]
    return support, resistance


# pandas' ewm(alpha=1/3, adjust=False) weights, derived as it derives them (alpha -> com -> alpha)
_KDJ_ALPHA = 1.0 / (1.0 + (1.0 - 1 / 3) / (1 / 3))
_KDJ_KEEP = 1.0 - _KDJ_ALPHA
_KDJ_TOTAL = _KDJ_KEEP + _KDJ_ALPHA  # pandas divides by the weights' sum (here exactly 1.0)


def kdj(high: np.ndarray, low: np.ndarray, close: np.ndarray, period: int = 9) -> tuple[float, float]:
    """The last K and D of KDJ(9,3,3) as quoted in China: RSV smoothed twice with weight 1/3 (K, D);
    J = 3K - 2D. RSV is 50 where the range is zero or the window not full.

    The smoothing is pandas' ewm(alpha=1/3, adjust=False).mean() step for step (it skips a value equal
    to the running one, keeping a constant series exact): a recursion, so one Python loop over the
    bars' floats, K and D together, instead of two Series per symbol.
    """
    lowest, highest = _rolling(low, period, np.minimum), _rolling(high, period, np.maximum)
    spread = highest - lowest
    with np.errstate(divide="ignore", invalid="ignore"):
        rsv = (close - lowest) / np.where(spread == 0, np.nan, spread) * 100
    values = np.where(np.isnan(rsv), 50.0, rsv).tolist()
    k = d = values[0] if values else float("nan")
    for value in values:
        if k != value:
            k = (_KDJ_KEEP * k + _KDJ_ALPHA * value) / _KDJ_TOTAL
        if d != k:
            d = (_KDJ_KEEP * d + _KDJ_ALPHA * k) / _KDJ_TOTAL
    return k, d


def obv_trend(close: np.ndarray, volume: np.ndarray) -> str:
    if len(close) < 21:
        return NA
    obv = talib.OBV(close, volume)[-21:]
    slope = np.polyfit(np.arange(len(obv)), obv, 1)[0]
    scale = np.mean(np.abs(volume[-20:])) or 1.0
    if slope > 0.05 * scale:
        return "上升"
    if slope < -0.05 * scale:
        return "下降"
    return "平稳"


class TechnicalSnapshotBuilder:
    def build(self, symbol: str, name: str, bars: list[PriceBarInput], as_of: date) -> TechnicalSnapshotDTO:
        adjusted = adjusted_bars(bars, as_of)
        n = len(adjusted)
        close, high, low, volume = adjusted.close, adjusted.high, adjusted.low, adjusted.volume
        price = last(close)
        mas = {p: moving_average(close, p) for p in MA_PERIODS}
        rsi = rsi_series(close)
        dif, dea, hist = macd_series(close)
        k, d = kdj(high, low, close) if n >= 9 else (float("nan"),) * 2
        upper, mid, lower = talib.BBANDS(close, 20, 2, 2) if n >= 20 else (np.full(n, np.nan),) * 3
        atr = atr_series(high, low, close)
        adx = talib.ADX(high, low, close, 14) if n >= 28 else np.full(n, np.nan)
        vol20 = volume[-20:]
        vwap = float(np.sum(close[-20:] * vol20) / np.sum(vol20)) if n >= 20 and np.sum(vol20) > 0 else np.nan
        prev5 = volume[-6:-1]
        volume_ratio = float(volume[-1] / prev5.mean()) if n >= 6 and prev5.mean() > 0 else np.nan
        prior_high = float(np.max(high[-21:-1])) if n >= 21 else np.nan
        prior_low = float(np.min(low[-21:-1])) if n >= 21 else np.nan
        support, resistance = swing_levels(high, low, price) if n else ([], [])

        patterns = []
        if n >= 20:
            ma5, ma20 = talib.SMA(close, 5), talib.SMA(close, 20)
            if crossed_up(ma5, ma20, CROSS_LOOKBACK):
                patterns.append("MA5 上穿 MA20（金叉）")
            if crossed_up(ma20, ma5, CROSS_LOOKBACK):
                patterns.append("MA5 下穿 MA20（死叉）")
        if n >= 34:
            if crossed_up(dif, dea, 3):
                patterns.append("MACD 金叉")
            if crossed_up(dea, dif, 3):
                patterns.append("MACD 死叉")
        if np.isfinite(prior_high) and price > prior_high:
            patterns.append("突破 20 日高点")
        if np.isfinite(prior_low) and price < prior_low:
            patterns.append("跌破 20 日低点")
        if np.isfinite(last(rsi)):
            if last(rsi) > 70:
                patterns.append("RSI 超买")
            elif last(rsi) < 30:
                patterns.append("RSI 超卖")
        if np.isfinite(mas[250]):
            patterns.append("位于 MA250 之上" if price > mas[250] else "位于 MA250 之下")
        if n >= 20 and np.isfinite(last(upper)) and price > last(upper):
            patterns.append("突破布林上轨")
        if n >= 20 and np.isfinite(last(lower)) and price < last(lower):
            patterns.append("跌破布林下轨")

        band = (last(upper) - last(lower)) / last(mid) * 100 if n >= 20 and last(mid) else np.nan
        return TechnicalSnapshotDTO(
            symbol=symbol,
            stock_name=name,
            as_of=as_of,
            trade_date=adjusted.dates[-1].isoformat() if n else NA,
            bars=n,
            close=num(price),
            change_5d_pct=num(change_pct(close, 5)),
            change_20d_pct=num(change_pct(close, 20)),
            **{f"ma{p}": num(v) for p, v in mas.items()},
            rsi14=num(last(rsi)),
            macd_dif=num(last(dif), 3),
            macd_dea=num(last(dea), 3),
            macd_hist=num(last(hist), 3),
            kdj_k=num(k),
            kdj_d=num(d),
            kdj_j=num(3 * k - 2 * d),
            boll_upper=num(last(upper)),
            boll_mid=num(last(mid)),
            boll_lower=num(last(lower)),
            boll_bandwidth_pct=num(band),
            atr14=num(last(atr)),
            atr14_pct=num(last(atr) / price * 100 if price else np.nan),
            adx14=num(last(adx)),
            obv_trend=obv_trend(close, volume),
            vwap20=num(vwap),
            volume_ratio=num(volume_ratio),
            high_20d=num(prior_high),
            low_20d=num(prior_low),
            support_levels=support,
            resistance_levels=resistance,
            support_text=", ".join(f"{v:g}" for v in support) or "无",
            resistance_text=", ".join(f"{v:g}" for v in resistance) or "无",
            patterns=patterns,
            patterns_text="；".join(patterns) or "无明显形态",
        )
