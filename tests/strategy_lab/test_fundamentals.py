"""Single-quarter values from year-to-date reports, and when each becomes known."""

from __future__ import annotations

import pandas as pd
import pytest

from stockdesk.strategy_lab.application.fundamentals import CATALYST_FIGURES, COLUMNS, single_quarter

NAN = float("nan")


def reports(rows: list[tuple[str, str, str, float, float, float]], symbol: str = "600001.SH") -> pd.DataFrame:
    """(end_date, ann_date, report_type, revenue, profit_dedt, net_profit), all year-to-date."""
    return pd.DataFrame(
        [
            {
                "symbol": symbol,
                "end_date": e,
                "ann_date": a,
                "report_type": t,
                "revenue": r,
                "profit_dedt": d,
                "net_profit": n,
            }
            for e, a, t, r, d, n in rows
        ]
    )


def test_ytd_reports_become_single_quarters_known_when_both_reports_are_out() -> None:
    out = single_quarter(
        reports(
            [
                ("2022-12-31", "2023-03-20", "A", 400.0, 40.0, 44.0),  # no Q3 before it: no quarter
                ("2023-03-31", "2023-04-25", "Q1", 100.0, 10.0, 11.0),
                ("2023-06-30", "2023-08-20", "H1", 250.0, 24.0, 27.0),
                ("2023-09-30", "2023-10-25", "Q3", 330.0, 33.0, 36.0),
                ("2023-12-31", "2024-03-20", "A", 480.0, 47.0, 52.0),
            ]
        )
    )
    assert list(out.columns) == ["symbol", "end_date", "ann_date", "revenue", "profit"]
    assert out["end_date"].dt.strftime("%Y-%m-%d").tolist() == [
        "2023-03-31", "2023-06-30", "2023-09-30", "2023-12-31",
    ]  # fmt: skip
    assert out["revenue"].tolist() == [100.0, 150.0, 80.0, 150.0]  # 250-100, 330-250, 480-330
    # profit is the deducted figure: 10, 24-10, 33-24, 47-33 (net profit would give 11, 16, 9, 16)
    assert out["profit"].tolist() == pytest.approx([10.0, 14.0, 9.0, 14.0])
    assert out["ann_date"].dt.strftime("%Y-%m-%d").tolist() == [
        "2023-04-25", "2023-08-20", "2023-10-25", "2024-03-20",
    ]  # fmt: skip


def test_a_gap_leaves_the_quarter_empty_instead_of_guessing() -> None:
    out = single_quarter(
        reports(
            [
                ("2023-03-31", "2023-04-25", "Q1", 100.0, 10.0, 11.0),
                ("2023-09-30", "2023-10-25", "Q3", 330.0, 33.0, 36.0),  # H1 missing: Q3 alone is unknown
                ("2023-12-31", "2024-03-20", "A", 480.0, 47.0, 52.0),
            ]
        )
    )
    assert out["revenue"].tolist() == [100.0, 150.0]
    assert out["profit"].tolist() == [10.0, 14.0]  # 47 - 33
    assert out["end_date"].dt.month.tolist() == [3, 12]


def test_a_quarter_announced_before_its_ytd_predecessor_waits_for_it() -> None:
    out = single_quarter(
        reports(
            [
                ("2023-03-31", "2023-08-01", "Q1", 100.0, 10.0, 11.0),  # Q1 published late
                ("2023-06-30", "2023-07-20", "H1", 250.0, 24.0, 27.0),
            ]
        )
    )
    assert out["ann_date"].dt.strftime("%Y-%m-%d").tolist() == ["2023-08-01", "2023-08-01"]


def test_no_reports_give_an_empty_frame_with_the_columns() -> None:
    empty = reports([]).reindex(columns=["symbol", "end_date", "ann_date", "report_type", "revenue"])
    out = single_quarter(empty)
    assert out.empty and list(out.columns) == ["symbol", "end_date", "ann_date", "revenue", "profit"]


def test_the_catalyst_figures_name_single_quarter_columns() -> None:
    assert CATALYST_FIGURES == {"revenue": "revenue", "earnings": "profit"}
    assert set(CATALYST_FIGURES.values()) <= set(COLUMNS)


def test_a_store_without_profit_columns_gives_empty_profit_not_an_error() -> None:
    """Older stores and fixtures hold revenue only: profit is empty, revenue still derived."""
    frame = reports([("2023-03-31", "2023-04-25", "Q1", 100.0, NAN, NAN)])[
        ["symbol", "end_date", "ann_date", "report_type", "revenue"]
    ]
    out = single_quarter(frame)
    assert out["revenue"].tolist() == [100.0] and out["profit"].isna().all()
