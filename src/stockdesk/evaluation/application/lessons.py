"""Lessons for a reflecting judge: past verdicts of a symbol and what followed, known by a date.

One rule for both sources (the verdict ledger for `analyze --reflection`, an evaluation's own
earlier points for `evaluate --reflection`): a past verdict is a lesson at date D when its outcome
at the lesson horizon was in the stored bars by D. The bars and the benchmark levels are cut at D
before anything is computed, so no price after D can reach a lesson (the tests perturb them).
Fills and excess returns are evaluate's (`scoring.outcomes`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import numpy as np
import pandas as pd

from stockdesk.coordinator.application import Lesson
from stockdesk.evaluation.application.scoring import outcomes
from stockdesk.evaluation.domain.ports import SecurityInfo

LESSON_HORIZON = 20  # the verdict's own horizon (the signal model's and the judge's plan's)
MAX_LESSONS = 5  # the newest five: enough to show a pattern, short enough for a small model's prompt
PAST_COLUMNS = ("symbol", "as_of", "action", "probability_up")


def known_lessons(
    past: pd.DataFrame,
    bars: pd.DataFrame,
    securities: Mapping[str, SecurityInfo],
    levels: pd.DataFrame,
    symbol: str,
    as_of: date,
    *,
    horizon: int = LESSON_HORIZON,
    limit: int = MAX_LESSONS,
) -> list[Lesson]:
    """The newest `limit` past verdicts of `symbol` (rows of `past`: symbol, as_of, action,
    probability_up as a float or None) dated before `as_of` whose `horizon`-day outcome was known
    by `as_of`; newest first."""
    mine = past[(past["symbol"] == symbol) & (pd.to_datetime(past["as_of"]) < pd.Timestamp(as_of))]
    if mine.empty:
        return []
    cut = pd.Timestamp(as_of)
    seen = bars[(bars["symbol"] == symbol) & (pd.to_datetime(bars["trade_date"]) <= cut)]
    seen_levels = levels[levels.index <= cut]
    if seen.empty or seen_levels.empty:
        return []
    # a verdict repeated for the same day (a rerun) is one lesson: the newest stated
    frame = mine.loc[:, list(PAST_COLUMNS)].drop_duplicates("as_of", keep="last").reset_index(drop=True)
    joined = outcomes(frame, seen, securities, seen_levels, [horizon])
    excess = joined[f"exc_{horizon}"].to_numpy(dtype=float)
    matured = joined[np.isfinite(excess)].sort_values("as_of", ascending=False).head(limit)
    return [
        Lesson(
            as_of=pd.Timestamp(row.as_of).date(),
            action=str(row.action),
            probability_up=_probability(row.probability_up),
            horizon=horizon,
            excess_return=round(float(getattr(row, f"exc_{horizon}")), 6),
        )
        for row in matured.itertuples(index=False)
    ]


def _probability(value: object) -> float | None:
    """A stated probability, or None (uncalibrated, or not stated)."""
    if value is None:
        return None
    number = float(value)  # type: ignore[arg-type]
    return None if not np.isfinite(number) else number
