"""years_before: pandas' DateOffset(years=n) rule, without an offset object per call."""

from __future__ import annotations

from datetime import date

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from stockdesk.shared.dates import years_before


@given(st.dates(min_value=date(1905, 1, 1), max_value=date(2100, 12, 31)), st.integers(0, 5))
def test_it_is_the_same_day_pandas_gives(day: date, years: int) -> None:
    assert years_before(day, years) == (pd.Timestamp(day) - pd.DateOffset(years=years)).date()


def test_29_february_falls_back_to_the_28th() -> None:
    assert years_before(date(2024, 2, 29), 3) == date(2021, 2, 28)
    assert years_before(date(2024, 2, 29), 4) == date(2020, 2, 29)
