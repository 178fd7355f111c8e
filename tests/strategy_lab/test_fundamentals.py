"""Single-quarter values from year-to-date reports, and when each becomes known."""

from __future__ import annotations

import pandas as pd
import pytest

from stockdesk.strategy_lab.application.fundamentals import single_quarter


def reports(rows: list[tuple[str, str, str, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"symbol": "600001.SH", "end_date": e, "ann_date": a, "report_type": t, "revenue": r, "roe": q}
            for e, a, t, r, q in rows
        ]
    )


def test_ytd_reports_become_single_quarters_known_when_both_reports_are_out() -> None:
    out = single_quarter(
        reports(
            [
                ("2022-12-31", "2023-03-20", "A", 400.0, 12.0),  # no Q3 before it: no quarter
                ("2023-03-31", "2023-04-25", "Q1", 100.0, 3.0),
                ("2023-06-30", "2023-08-20", "H1", 250.0, 7.0),
                ("2023-09-30", "2023-10-25", "Q3", 330.0, 10.0),
                ("2023-12-31", "2024-03-20", "A", 480.0, 14.0),
            ]
        )
    )
    assert out["end_date"].dt.strftime("%Y-%m-%d").tolist() == [
        "2023-03-31", "2023-06-30", "2023-09-30", "2023-12-31",
    ]  # fmt: skip
    assert out["revenue"].tolist() == [100.0, 150.0, 80.0, 150.0]  # 250-100, 330-250, 480-330
    assert out["roe"].tolist() == pytest.approx([3.0, 4.0, 3.0, 4.0])
    assert out["ann_date"].dt.strftime("%Y-%m-%d").tolist() == [
        "2023-04-25", "2023-08-20", "2023-10-25", "2024-03-20",
    ]  # fmt: skip


def test_a_gap_leaves_the_quarter_empty_instead_of_guessing() -> None:
    out = single_quarter(
        reports(
            [
                ("2023-03-31", "2023-04-25", "Q1", 100.0, 3.0),
                ("2023-09-30", "2023-10-25", "Q3", 330.0, 10.0),  # H1 missing: Q3 alone is unknown
                ("2023-12-31", "2024-03-20", "A", 480.0, 14.0),
            ]
        )
    )
    assert out["revenue"].tolist() == [100.0, 150.0]
    assert out["end_date"].dt.month.tolist() == [3, 12]


def test_a_quarter_announced_before_its_ytd_predecessor_waits_for_it() -> None:
    out = single_quarter(
        reports(
            [
                ("2023-03-31", "2023-08-01", "Q1", 100.0, 3.0),  # Q1 published late
                ("2023-06-30", "2023-07-20", "H1", 250.0, 7.0),
            ]
        )
    )
    assert out["ann_date"].dt.strftime("%Y-%m-%d").tolist() == ["2023-08-01", "2023-08-01"]


def test_no_reports_give_an_empty_frame_with_the_columns() -> None:
    out = single_quarter(
        pd.DataFrame(columns=["symbol", "end_date", "ann_date", "report_type", "revenue", "roe"])
    )
    assert out.empty and list(out.columns) == ["symbol", "end_date", "ann_date", "revenue", "roe"]
