"""The verdict table the evaluation page lists: built from scored points, sorted and paged."""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd
import pytest

from stockdesk.evaluation.application.verdict_table import SORTS, verdict_page, verdict_table
from stockdesk.evaluation.domain.dtos import EvaluationConfig, VerdictTable

D1, D2, D3 = date(2024, 1, 2), date(2024, 1, 3), date(2024, 1, 4)


def scored_points() -> pd.DataFrame:
    """Five points as `outcomes` leaves them (returns at 5 days; one not known yet)."""
    return pd.DataFrame(
        {
            "symbol": ["B.SH", "A.SH", "C.SH", "A.SH", "B.SH"],
            "as_of": [D1, D1, D2, D2, D3],
            "action": ["BUY", "SELL", "HOLD", "BUY", "SELL"],
            "session_id": [None, "s-1", np.nan, None, None],
            "probability_up": [{"5": 0.7}, {"5": None}, {}, {"5": 0.55}, {"5": 0.2}],
            "fwd_5": [0.04, 0.02, -0.01, -0.03, np.nan],
            "exc_5": [0.01, -0.02, 0.0, -0.05, np.nan],
        }
    )


def test_each_point_gets_its_probability_returns_session_and_the_by_action_hit_rule() -> None:
    table = verdict_table(scored_points(), EvaluationConfig(symbols=["A.SH"], start=D1, end=D3, horizons=[5]))
    assert table.symbol == ["B.SH", "A.SH", "C.SH", "A.SH", "B.SH"] and table.as_of[2] == D2
    assert table.session_id == [None, "s-1", None, None, None]
    assert table.probability["5"] == [0.7, None, None, 0.55, 0.2]
    assert table.forward["5"] == [0.04, 0.02, -0.01, -0.03, None]
    assert table.excess["5"] == [0.01, -0.02, 0.0, -0.05, None]
    # BUY up: hit; SELL up: miss; HOLD within 3%: hit; BUY down: miss; no return yet: unknown
    assert table.hit["5"] == [True, False, True, False, None]


def table() -> VerdictTable:
    return verdict_table(scored_points(), EvaluationConfig(symbols=["A.SH"], start=D1, end=D3, horizons=[5]))


def keys(page) -> list[tuple[str, date]]:  # type: ignore[no-untyped-def]
    return [(r.symbol, r.as_of) for r in page.rows]


def test_sorting_puts_unknown_values_last_both_ways_and_breaks_ties_by_date_then_symbol() -> None:
    down = verdict_page(table(), horizon="5", sort="excess", descending=True, offset=0, limit=10)
    assert [r.excess for r in down.rows] == [0.01, 0.0, -0.02, -0.05, None] and down.total == 5
    up = verdict_page(table(), horizon="5", sort="excess", descending=False, offset=0, limit=10)
    assert [r.excess for r in up.rows] == [-0.05, -0.02, 0.0, 0.01, None]
    by_action = verdict_page(table(), horizon="5", sort="action", descending=False, offset=0, limit=10)
    assert keys(by_action) == [("B.SH", D1), ("A.SH", D2), ("C.SH", D2), ("A.SH", D1), ("B.SH", D3)]
    by_date = verdict_page(table(), horizon="5", sort="as_of", descending=True, offset=0, limit=10)
    assert keys(by_date) == [("B.SH", D3), ("A.SH", D2), ("C.SH", D2), ("A.SH", D1), ("B.SH", D1)]
    hits = verdict_page(table(), horizon="5", sort="hit", descending=True, offset=0, limit=10)
    assert [r.hit for r in hits.rows] == [True, True, False, False, None]


def test_a_page_is_a_slice_of_the_sorted_rows() -> None:
    every = verdict_page(table(), horizon="5", sort="probability", descending=True, offset=0, limit=10)
    assert [r.probability for r in every.rows] == [0.7, 0.55, 0.2, None, None]
    second = verdict_page(table(), horizon="5", sort="probability", descending=True, offset=2, limit=2)
    assert keys(second) == keys(every)[2:4] and second.offset == 2 and second.total == 5


def test_every_sort_the_page_offers_is_known_and_others_are_refused() -> None:
    for sort in SORTS:
        assert (
            len(verdict_page(table(), horizon="5", sort=sort, descending=False, offset=0, limit=5).rows) == 5
        )
    with pytest.raises(ValueError, match="unknown sort"):
        verdict_page(table(), horizon="5", sort="confidence", descending=False, offset=0, limit=5)
