"""zvt's forward-adjusted (qfq) daily bars -> unadjusted canonical bars, using zvt's dividend plans.

`stock_1d_kdata` in the zvt sample is forward-adjusted to the recording day (see `zvt_sample.py`), and
derived PE/PB need the price the reported EPS refers to, so raw prices are rebuilt. On an ex-date the
exchange's reference price is (P - cash) / (1 + bonus shares); the multiplier x from qfq to raw prices
therefore steps back through the ex-dates as x_before = cash / q_prev + (1 + bonus) * x_after (q_prev:
the qfq close the day before; x = 1 after the last ex-date). For 000338 this reproduces the JoinQuant
factor implied by its hfq table (19.4297 vs 19.4300). Where hfq bars exist (hfq = raw x adj, adj >= 1)
they carry less rounding error than qfq x x, so they give the raw prices of those symbols.

Volume: JoinQuant scales it with the prices at download time (volume x close stays the real turnover),
so raw volume = qfq volume / x. zvt rescales only the PRICES of bars stored before a later ex-date
(`recompute_qfq`), so bars recorded before such an event keep a volume too low by that event's factor
(in the real sample about 2-3 % for 601318, 000001, 000783 and 002572 up to late 2019); `amount`
(JoinQuant `money`, CNY) is exact.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.validation import END_DATE, FIRST_DATE, ROW
from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.exceptions import ImportValidationError, RowProblem

PRICES = ["open", "high", "low", "close"]


def column(frame: pd.DataFrame, name: str) -> pd.Series:
    """`frame[name]`, or all-NaN when zvt's table lacks the column (older or partial samples)."""
    if name in frame.columns:
        return frame[name]
    return pd.Series(np.nan, index=frame.index, dtype="float64")


def dates(values: pd.Series) -> pd.Series:
    """zvt stores DATETIME as text ('2020-06-16 00:00:00.000000'); NaT where unparsable or absurd.

    Always nanosecond dates (what merges between tables need), so years outside the validator's
    range are NaT here too."""
    # utc=True only so that a stray offset cannot fail the whole column; naive times keep their wall time
    parsed = pd.to_datetime(values.astype("string"), errors="coerce", format="mixed", utc=True)
    parsed = parsed.dt.tz_localize(None)
    parsed = parsed.where((parsed >= FIRST_DATE) & (parsed < END_DATE))
    return parsed.astype("datetime64[ns]").dt.normalize()


def symbols_of(entity_ids: pd.Series) -> pd.Series:
    """`stock_sz_000338` -> `000338.SZ`; NaN for ids that are not A-share stocks."""
    parts = entity_ids.astype("string").str.extract(r"^stock_(sh|sz|bj)_(\d{6})$")
    return parts[1] + "." + parts[0].str.upper()


def dividend_events(detail: pd.DataFrame) -> pd.DataFrame:
    """Executed plans (with an ex-date): symbol, ex_date, cash and bonus shares per share."""
    columns = ["symbol", "ex_date", "cash", "bonus"]
    if detail.empty:
        return pd.DataFrame(columns=columns)
    plan = column(detail, "dividend").astype("string").str.strip()
    base = pd.to_numeric(plan.str.extract(r"^(\d+(?:\.\d+)?)")[0], errors="coerce")

    def per_share(word: str) -> pd.Series:
        amount = pd.to_numeric(plan.str.extract(rf"{word}(\d+(?:\.\d+)?)")[0], errors="coerce")
        return amount.fillna(0.0) / base

    events = pd.DataFrame(
        {
            "symbol": symbols_of(detail["entity_id"]),
            "ex_date": dates(column(detail, "dividend_date")),
            "cash": per_share("派"),
            "bonus": per_share("送") + per_share("转"),
        }
    )
    executed = events["ex_date"].notna() & events["symbol"].notna()
    unreadable = executed & base.isna()
    if unreadable.any():
        problems = [
            RowProblem(row=int(row), reason=f"dividend_detail: unreadable plan {text!r}")
            for row, text in zip(detail.loc[unreadable, ROW], plan[unreadable], strict=True)
        ]
        raise ImportValidationError("dividend_detail", problems)
    events = events[executed & ((events["cash"] > 0) | (events["bonus"] > 0))]
    return events.groupby(["symbol", "ex_date"], as_index=False)[["cash", "bonus"]].sum()


def raw_multiplier(bars: pd.DataFrame, events: pd.DataFrame) -> pd.Series:
    """x per bar with raw price = qfq price x x (see the module docstring); 1 after the last ex-date.

    bars: symbol, trade_date, close (qfq), sorted by symbol and date. Ex-dates before the second bar
    or after the last bar do not change any bar and are ignored.
    """
    ones = pd.Series(1.0, index=bars.index)
    if events.empty:
        return ones
    days = bars[["symbol", "trade_date"]].assign(q_prev=bars.groupby("symbol")["close"].shift())
    hits = pd.merge_asof(
        events.sort_values("ex_date"),
        days.sort_values("trade_date"),
        left_on="ex_date",
        right_on="trade_date",
        by="symbol",
        direction="forward",
    ).dropna(subset=["trade_date", "q_prev"])
    if hits.empty:
        return ones
    hits = hits.assign(growth=1.0 + hits["bonus"])
    steps = (
        hits.groupby(["symbol", "trade_date"])
        .agg(cash=("cash", "sum"), growth=("growth", "prod"), q_prev=("q_prev", "first"))
        .reset_index()
        .sort_values(["symbol", "trade_date"], ascending=[True, False])  # newest first: x_after is known
    )
    # x_k = a_k + b_k x_(k+1)  =>  x_k = B_k (sum_(j>=k) a_j / B_j + 1), B_k = prod_(i>=k) b_i
    growth_to_end = steps.groupby("symbol")["growth"].cumprod()
    scaled = (steps["cash"] / steps["q_prev"] / growth_to_end).groupby(steps["symbol"]).cumsum()
    steps["x"] = growth_to_end * (scaled + 1.0)
    probe = bars[["symbol", "trade_date"]].assign(_order=np.arange(len(bars)))
    matched = pd.merge_asof(
        probe.sort_values("trade_date"),
        steps[["symbol", "trade_date", "x"]].rename(columns={"trade_date": "ex_bar"}).sort_values("ex_bar"),
        left_on="trade_date",
        right_on="ex_bar",
        by="symbol",
        direction="forward",
        allow_exact_matches=False,  # the ex-date bar itself already trades at raw = qfq x x_after
    )
    x = matched.sort_values("_order")["x"].fillna(1.0).to_numpy()
    return pd.Series(x, index=bars.index)


def kdata_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A kdata table with canonical symbol and trade_date, sorted as `raw_multiplier` expects."""
    out = frame.assign(symbol=symbols_of(frame["entity_id"]), trade_date=dates(frame["timestamp"]))
    out = out.dropna(subset=["symbol", "trade_date"])
    return out.sort_values(["symbol", "trade_date"]).reset_index(drop=True)


def to_bars(kdata: pd.DataFrame, hfq: pd.DataFrame, events: pd.DataFrame) -> pd.DataFrame:
    """Raw (unadjusted) bars: prices in CNY, volume in shares, amount in CNY, adj_factor (hfq style)."""
    bars = kdata_frame(kdata)
    for name in [*PRICES, "volume", "turnover"]:
        bars[name] = pd.to_numeric(column(bars, name), errors="coerce")
    x = raw_multiplier(bars, events)
    prices = bars[PRICES].mul(x, axis=0)
    if not hfq.empty:
        post = kdata_frame(hfq)[["symbol", "trade_date", *PRICES, "volume"]]
        # like the qfq table's: a cell that is not a number is missing (its qfq price is used)
        post = post.assign(**{n: pd.to_numeric(post[n], errors="coerce") for n in [*PRICES, "volume"]})
        aligned = bars[["symbol", "trade_date", "volume"]].merge(
            post, on=["symbol", "trade_date"], how="left", suffixes=("_qfq", "")
        )
        # hfq / qfq is one constant per symbol; the volumes (large integers) measure it best
        constant = (aligned["volume_qfq"] / aligned["volume"]).groupby(aligned["symbol"]).transform("median")
        prices = aligned[PRICES].mul(x / constant, axis=0).combine_first(prices)
    prices = prices.round(2)
    previous = prices["close"].groupby(bars["symbol"]).shift()
    pre_close = (previous * x / x.groupby(bars["symbol"]).shift()).round(2)  # ex-reference on ex-dates
    return pd.DataFrame(
        {
            "symbol": bars["symbol"],
            "trade_date": bars["trade_date"],
            **{name: prices[name] for name in PRICES},
            "pre_close": pre_close,
            "pct_chg": (prices["close"] / pre_close - 1.0) * 100.0,
            "volume": (bars["volume"] / x).round(),
            "amount": bars["turnover"],
            "adj_factor": x.groupby(bars["symbol"]).transform("first") / x,
            ROW: bars[ROW],
        }
    )


def to_dividends(events: pd.DataFrame) -> pd.DataFrame:
    """Cash per share by ex-date (pre-tax, as in the plan text) for derived dividend yields."""
    cash = events[events["cash"] > 0]
    return pd.DataFrame(
        {"symbol": cash["symbol"], "ex_date": cash["ex_date"], "cash_per_share": cash["cash"]}
    )[F.DIVIDEND_COLUMNS]
