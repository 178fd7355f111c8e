"""Rank information coefficient: does a higher signal line up with a higher forward return?

Definition (the contract `stockdesk evaluate` reports):

* For each date, take the points whose signal and return are both finite. With at least
  `min_symbols` of them, the date's IC is the Spearman correlation between signal and return:
  the Pearson correlation of their average ranks (tied values share the mean of the ranks they
  occupy). A date where either side is constant has no IC and is skipped, as is a date with
  fewer than `min_symbols` points.
* Over the n dates with an IC: `mean`, `std` (ddof=1), `icir` = mean / std,
  `t` = mean / (std / sqrt(n)), `positive_share` = share of dates with IC > 0.
* With n < 2 or std == 0, `icir` and `t` are None; with n == 0 `mean` is None too. A
  cross-sectional IC is judged by its mean and its stability over dates, which is why the
  per-date values are kept in `per_date`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.evaluation.application.scores._common import date_array, float_array
from stockdesk.evaluation.domain.metrics import DateIC, RankIC

# A std this small is rounding noise around identical ICs; dividing by it would report a huge t.
_ZERO_STD = 1e-12


def daily_ic(dates: Any, signal: Any, returns: Any, min_symbols: int = 5) -> pd.DataFrame:
    """Per-date Spearman IC, vectorised over dates (the bootstrap computes these once per sample).

    Returns a frame indexed by date (datetime64, sorted) with columns `ic` and `symbols`,
    holding only the dates that produced an IC.
    """
    frame = pd.DataFrame({"date": date_array(dates), "s": float_array(signal), "r": float_array(returns)})
    frame = frame[np.isfinite(frame["s"]) & np.isfinite(frame["r"])]
    frame = frame[frame.groupby("date")["s"].transform("size") >= min_symbols]
    if frame.empty:
        return pd.DataFrame({"ic": [], "symbols": []}, index=pd.DatetimeIndex([], name="date")).astype(
            {"ic": float, "symbols": int}
        )
    groups = frame.groupby("date")
    ranks = groups[["s", "r"]].rank(method="average")
    centred = ranks - ranks.groupby(frame["date"]).transform("mean")
    sums = (
        pd.DataFrame(
            {
                "sr": centred["s"] * centred["r"],
                "ss": centred["s"] ** 2,
                "rr": centred["r"] ** 2,
                "date": frame["date"],
            }
        )
        .groupby("date")[["sr", "ss", "rr"]]
        .sum()
    )
    sums["symbols"] = groups.size()
    # Ranks of a constant side are all equal, so their spread is exactly 0.
    sums = sums[(sums["ss"] > 0) & (sums["rr"] > 0)]
    ic = (sums["sr"] / np.sqrt(sums["ss"] * sums["rr"])).clip(-1.0, 1.0)
    return pd.DataFrame({"ic": ic.astype(float), "symbols": sums["symbols"].astype(int)}).sort_index()


def summarise_ics(ics: np.ndarray) -> dict[str, float | None]:
    """mean, std, icir, t and positive_share of a set of per-date ICs (None where undefined)."""
    n = len(ics)
    if n == 0:
        return {"mean": None, "std": None, "icir": None, "t": None, "positive_share": None}
    mean = float(np.mean(ics))
    std = float(np.std(ics, ddof=1)) if n >= 2 else None
    if std is not None and std <= _ZERO_STD:
        std = 0.0
    spread = std is not None and std > 0
    return {
        "mean": mean,
        "std": std,
        "icir": mean / std if spread else None,
        "t": mean / (std / math.sqrt(n)) if spread else None,
        "positive_share": float(np.mean(ics > 0)),
    }


def rank_ic(dates: Any, signal: Any, returns: Any, min_symbols: int = 5) -> RankIC:
    """Rank IC of `signal` against `returns` over the dates (arrays aligned by point)."""
    daily = daily_ic(dates, signal, returns, min_symbols)
    per_date = [
        DateIC(date=pd.Timestamp(day).date(), ic=float(row.ic), symbols=int(row.symbols))
        for day, row in zip(daily.index, daily.itertuples(index=False), strict=True)
    ]
    return RankIC(**summarise_ics(daily["ic"].to_numpy(dtype=float)), dates=len(daily), per_date=per_date)
