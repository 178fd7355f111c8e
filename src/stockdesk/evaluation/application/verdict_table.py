"""The evaluation's individual verdicts as a table: built once when the report is scored, then sorted
and paged for the evaluation page without touching the points again.

A point's hit is the rule of the by-action figures (`hit_flags`: BUY up, SELL down, HOLD within the
hold band, on the forward return); None while its forward return is not known.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from stockdesk.evaluation.application.scores.actions import hit_flags
from stockdesk.evaluation.domain.dtos import EvaluationConfig, VerdictPage, VerdictRow, VerdictTable

SORTS = ("symbol", "as_of", "action", "probability", "forward", "excess", "hit")


def verdict_table(frame: pd.DataFrame, config: EvaluationConfig) -> VerdictTable:
    """The scored points of one set (`outcomes` joined: `fwd_<h>`, `exc_<h>`) as the page's table."""
    horizons = [str(h) for h in config.horizons]
    probabilities = frame["probability_up"].tolist()
    table = VerdictTable(
        symbol=frame["symbol"].tolist(),
        as_of=frame["as_of"].tolist(),
        action=frame["action"].tolist(),
        session_id=[s if isinstance(s, str) else None for s in frame["session_id"]],
    )
    for h in horizons:
        forward = frame[f"fwd_{h}"].to_numpy(dtype=float)
        known = np.isfinite(forward)
        hits = hit_flags(frame["action"], forward, config.hold_band)
        table.probability[h] = [_finite((p or {}).get(h)) for p in probabilities]
        table.forward[h] = _fractions(forward)
        table.excess[h] = _fractions(frame[f"exc_{h}"].to_numpy(dtype=float))
        table.hit[h] = [bool(hit) if ok else None for hit, ok in zip(hits, known, strict=True)]
    return table


def verdict_page(
    table: VerdictTable, *, horizon: str, sort: str, descending: bool, offset: int, limit: int
) -> VerdictPage:
    """`limit` rows from `offset`, sorted by `sort` (one of SORTS) at `horizon`; rows without the
    value come last either way, ties in date then symbol order."""
    total = len(table.symbol)
    column = _column(table, sort, horizon)
    order = sorted(range(total), key=lambda i: (table.as_of[i], table.symbol[i]))
    known = [i for i in order if column[i] is not None]
    known.sort(key=lambda i: column[i], reverse=descending)  # stable: ties keep date, symbol order
    chosen = (known + [i for i in order if column[i] is None])[offset : offset + limit]
    rows = [
        VerdictRow(
            symbol=table.symbol[i], as_of=table.as_of[i], action=table.action[i],
            session_id=table.session_id[i], probability=table.probability[horizon][i],
            forward=table.forward[horizon][i], excess=table.excess[horizon][i], hit=table.hit[horizon][i],
        )
        for i in chosen
    ]  # fmt: skip
    return VerdictPage(
        horizon=horizon, sort=sort, descending=descending, offset=offset, total=total, rows=rows
    )


def _column(table: VerdictTable, sort: str, horizon: str) -> list[Any]:
    if sort in ("symbol", "as_of", "action"):
        values: list[Any] = getattr(table, sort)
        return values
    if sort not in SORTS:
        raise ValueError(f"unknown sort {sort!r}")
    by_horizon: dict[str, list[Any]] = getattr(table, sort)
    return by_horizon[horizon]


def _fractions(values: np.ndarray) -> list[float | None]:
    """Rounded to 1e-8 as the report's points are; None where not finite."""
    return [float(v) if np.isfinite(v) else None for v in np.round(values, 8)]


def _finite(value: Any) -> float | None:
    return float(value) if value is not None and np.isfinite(value) else None
