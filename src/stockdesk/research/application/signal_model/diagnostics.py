"""What the signal model learned, per horizon: each factor's weight over time and its own rank IC.

- `ic_mean`, `ic_t`, `ic_dates`: the factor's own per-date Spearman correlation with the forward
  excess return over the grid dates with at least MIN_SYMBOLS symbols having both (t = mean /
  (sd / sqrt(dates)), naive: overlapping windows make it look surer than it is);
- `weight`, `t`: the fit's weight and t-statistic at the last wanted date (`prior` when the model
  ran on prior weights there);
- `weights_over_time`: the fitted weights at the first wanted date of each month (None: prior).
A factor whose weight stays at 0 is one the data did not support: "does it help?" answered by data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.research.application.factors import FACTOR_BY_NAME
from stockdesk.research.application.signal_model.walk_forward import DateFit, per_date_ranks

MIN_SYMBOLS = 5


def factor_ic(
    ranked: pd.DataFrame, labels: pd.DataFrame, name: str
) -> tuple[float | None, float | None, int]:
    """(mean, t, dates) of the factor's per-date rank correlation with the labels."""
    joined = ranked[["date", "symbol", name]].merge(
        labels[["date", "symbol", "label"]], on=["date", "symbol"]
    )
    joined = joined[
        np.isfinite(joined[name].to_numpy(dtype=float)) & np.isfinite(joined["label"].to_numpy(dtype=float))
    ]
    if joined.empty:
        return None, None, 0
    joined = joined.assign(x=per_date_ranks(joined, name), y=per_date_ranks(joined, "label"))
    joined = joined.assign(xy=joined["x"] * joined["y"], xx=joined["x"] ** 2, yy=joined["y"] ** 2)
    sums = joined.groupby("date")[["x", "y", "xy", "xx", "yy"]].sum()
    n = joined.groupby("date").size()
    with np.errstate(divide="ignore", invalid="ignore"):
        cov = sums["xy"] - sums["x"] * sums["y"] / n
        var = (sums["xx"] - sums["x"] ** 2 / n) * (sums["yy"] - sums["y"] ** 2 / n)
        ic = (cov / np.sqrt(var))[(n >= MIN_SYMBOLS) & (var > 0)]
    ic = ic[np.isfinite(ic)]
    if len(ic) == 0:
        return None, None, 0
    mean = float(ic.mean())
    sd = float(ic.std(ddof=1)) if len(ic) > 1 else 0.0
    return mean, (mean / (sd / np.sqrt(len(ic))) if sd > 0 else None), len(ic)


def factor_report(
    ranked: pd.DataFrame,
    labels: pd.DataFrame,
    fits: dict[pd.Timestamp, DateFit],
    features: Sequence[str],
    wanted: Sequence[pd.Timestamp],
) -> dict[str, Any]:
    """The horizon's factor table and the monthly weights over time (see the module docstring)."""
    days = sorted(d for d in wanted if d in fits)
    last = fits[days[-1]] if days else None
    rows = []
    for name in features:
        mean, t, dates = factor_ic(ranked, labels, name)
        fitted = last is not None and last.source == "fitted"
        rows.append({
            "factor": name, "group": FACTOR_BY_NAME[name].group if name in FACTOR_BY_NAME else "voice",
            "weight": round(last.weights.get(name, 0.0), 6) + 0.0 if fitted else None,
            "t": _rounded(last.t.get(name)) if fitted else None,
            "prior": "prior" if not fitted else "fitted",
            "ic_mean": _rounded(mean), "ic_t": _rounded(t), "ic_dates": dates,
        })  # fmt: skip
    monthly = [d for i, d in enumerate(days) if i == 0 or d.to_period("M") != days[i - 1].to_period("M")]
    return {
        "factors": rows,
        "weights_over_time": {
            "dates": [d.date().isoformat() for d in monthly],
            "source": [fits[d].source for d in monthly],
            "weights": {
                name: [
                    round(fits[d].weights[name], 6) if fits[d].source == "fitted" else None for d in monthly
                ]
                for name in features
            },
        },
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else round(float(value), 4)


def _weight(fit: DateFit, name: str) -> float | None:
    return round(fit.weights[name], 6) + 0.0 if fit.source == "fitted" else None  # no -0.0
