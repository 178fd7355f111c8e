"""The momentum family's catalyst as the spec says: a lookback in months (served by the quarters the
months cover, the store being quarterly), earnings = net profit after non-recurring items, and no
look-ahead. The rendered module passes the code allowlist and is executed as rendered."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pandas as pd
import pytest

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.application.code_check import check_strategy_code
from stockdesk.strategy_lab.application.fundamentals import CATALYST_FIGURES, single_quarter
from stockdesk.strategy_lab.domain.dtos import BacktestWindow
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams
from stockdesk.strategy_lab.infrastructure.templates.momentum_template import MomentumTemplate
from tests.strategy_lab.support import VALID

NAN = float("nan")
INDEX = pd.bdate_range("2023-04-03", "2024-09-30")
# Single quarters of symbol A, each announced on a weekday; "after" is the next trading day.
ENDS = ["2023-03-31", "2023-06-30", "2023-09-30", "2023-12-31", "2024-03-31", "2024-06-30"]
ANNOUNCED = ["2023-04-20", "2023-08-18", "2023-10-20", "2024-03-20", "2024-04-25", "2024-08-20"]
AFTER = ["2023-04-21", "2023-08-21", "2023-10-23", "2024-03-21", "2024-04-26", "2024-08-21"]
REVENUE = [100.0, 120.0, 110.0, 130.0, 90.0, 140.0]


def strategy(months: int, catalyst_type: str = "revenue") -> SimpleNamespace:
    """The rendered momentum module for a lookback in months, checked by the allowlist, then run."""
    code = MomentumTemplate().render(
        MomentumStrategyParams(**{**VALID, "catalyst_lookback": months, "catalyst_type": catalyst_type})
    )
    check_strategy_code(code)
    namespace: dict = {}
    exec(compile(code, "<strategy>", "exec"), namespace)  # our own template's code, as the sandbox runs it
    return SimpleNamespace(**namespace)


def quarters(symbol: str, ends: list[str], announced: list[str], values: list[float]) -> pd.DataFrame:
    """Single-quarter rows as single_quarter() hands them to the template (revenue = profit here)."""
    return pd.DataFrame(
        {
            "symbol": symbol,
            "end_date": pd.to_datetime(ends),
            "ann_date": pd.to_datetime(announced),
            "revenue": values,
            "profit": values,
        }
    )


def flags(months: int, facts: pd.DataFrame, columns: tuple[str, ...] = ("A", "B")) -> pd.DataFrame:
    close = pd.DataFrame(10.0, index=INDEX, columns=list(columns))
    return strategy(months).catalyst_flags(close, facts)


def on(frame: pd.DataFrame, days: list[str], symbol: str = "A") -> list[bool]:
    return [bool(frame.loc[pd.Timestamp(day), symbol]) for day in days]


def test_months_become_the_quarters_they_cover() -> None:
    # ceil(months / 3): 2 -> 1, 3 -> 1, 4 -> 2, 6 -> 2
    assert {m: strategy(m).CATALYST_QUARTERS for m in (2, 3, 4, 6)} == {2: 1, 3: 1, 4: 2, 6: 2}
    assert {m: strategy(m).PARAMS["catalyst_lookback"] for m in (2, 3, 4, 6)} == {2: 2, 3: 3, 4: 4, 6: 6}


# REVENUE = 100, 120, 110, 130, 90, 140 by quarter.
# One quarter (2 or 3 months): on when the latest is above the mean of the last two (= above the previous):
#   Q1'23 no predecessor -> off; 120>100 on; 110<120 off; 130>110 on; 90<130 off; 140>90 on.
# Two quarters (4 or 6 months): mean of the last 2 above the mean of the last 4 (3 at least):
#   Q1'23, Q2'23: too few quarters -> off
#   Q3'23: (120+110)/2 = 115 > (100+120+110)/3 = 110 -> on
#   Q4'23: (110+130)/2 = 120 > (100+120+110+130)/4 = 115 -> on
#   Q1'24: (130+90)/2 = 110 < (120+110+130+90)/4 = 112.5 -> off
#   Q2'24: (90+140)/2 = 115 < (110+130+90+140)/4 = 117.5 -> off
ONE_QUARTER = [False, True, False, True, False, True]
TWO_QUARTERS = [False, False, True, True, False, False]


@pytest.mark.parametrize(
    ("months", "expected"), [(2, ONE_QUARTER), (3, ONE_QUARTER), (4, TWO_QUARTERS), (6, TWO_QUARTERS)]
)
def test_hand_computed_flags_by_months(months: int, expected: list[bool]) -> None:
    frame = flags(months, quarters("A", ENDS, ANNOUNCED, REVENUE))
    assert list(frame.columns) == ["A", "B"] and frame.index.equals(INDEX)
    assert on(frame, AFTER) == expected
    # on the announcement day itself the previous quarter's flag still holds
    assert on(frame, ANNOUNCED[1:]) == expected[:-1]
    assert not frame.loc[: pd.Timestamp("2023-04-20"), "A"].any()  # before the first report is out
    assert not frame["B"].any()  # no fundamentals: never on


def test_a_missing_quarter_stays_missing() -> None:
    """Q3'23 never reported: the windows count quarters by end date, not by rows."""
    facts = quarters(
        "A",
        ["2023-03-31", "2023-06-30", "2023-12-31", "2024-03-31"],
        ["2023-04-20", "2023-08-18", "2024-03-20", "2024-04-25"],
        [100.0, 120.0, 130.0, 140.0],
    )
    days = ["2023-08-21", "2024-03-21", "2024-04-26"]
    # one quarter: Q2 120 > 100 on; Q4 has no Q3 to compare with -> off (rows would say 130 > 120);
    #   Q1'24: 140 > (130 + 140) / 2 = 135 -> on
    assert on(flags(3, facts), days) == [True, False, True]
    # two quarters: Q2 too few; Q4 has only itself in its last two quarters -> off;
    #   Q1'24: (130 + 140) / 2 = 135 > mean of Q2, Q4, Q1 (3 of the last 4) = 130 -> on
    assert on(flags(6, facts), days) == [False, False, True]


def test_a_late_older_quarter_counts_only_once_out_and_never_replaces_the_newer_flag() -> None:
    """Q3'23 (110) is announced after Q4'23 (130): until then Q4 has no predecessor, then 130 > 110."""
    announced = ["2023-04-20", "2023-08-18", "2024-03-27", "2024-03-20", "2024-04-25", "2024-08-20"]
    frame = flags(3, quarters("A", ENDS, announced, REVENUE))
    # Oct 23: Q2's flag (on) still holds; Mar 21: Q4 without Q3 -> off; Mar 28: Q3 out, the latest
    # quarter is still Q4: 130 > 110 -> on (Q3's own 110 < 120 never shows)
    assert on(frame, ["2023-10-23", "2024-03-21", "2024-03-28"]) == [True, False, True]


def test_no_look_ahead_a_flag_uses_only_reports_out_before_the_day() -> None:
    """On every day the flags equal those computed from the reports announced strictly before it
    (later reports removed altogether), with a late filing of an older quarter among them."""
    announced = ["2023-04-20", "2023-08-18", "2024-03-27", "2024-03-20", "2024-04-25", "2024-08-20"]
    facts = pd.concat(
        [
            quarters("A", ENDS, announced, REVENUE),
            quarters("B", ENDS, ANNOUNCED, [50.0, 40.0, 60.0, 70.0, 65.0, 90.0]),
        ],
        ignore_index=True,
    )
    for months in (3, 6):
        full = flags(months, facts)
        by_cut: dict[tuple[bool, ...], pd.DataFrame] = {}
        for day in INDEX:
            out = facts["ann_date"] < day
            key = tuple(out)
            if key not in by_cut:
                by_cut[key] = flags(months, facts[out])
            assert full.loc[day].equals(by_cut[key].loc[day]), (months, day)
        assert len(by_cut) == 8  # none out yet, then one cut per distinct announcement day (7)
        assert full["A"].any() and full["B"].any()  # the comparison is not between two empty frames


def test_changing_a_report_leaves_every_earlier_day_unchanged() -> None:
    base = quarters("A", ENDS, ANNOUNCED, REVENUE)
    for row in range(len(base)):
        changed = base.copy()
        # flips a one-quarter flag: an "on" quarter falls below its predecessor, an "off" one (and
        # Q1'23, whose successor 120 then falls below it) rises above
        changed.loc[row, "revenue"] = -1_000.0 if ONE_QUARTER[row] else 1_000.0
        before, after = flags(3, base), flags(3, changed)
        known = pd.Timestamp(ANNOUNCED[row])
        assert before.loc[:known].equals(after.loc[:known]), row
        assert not before.equals(after), row  # the change does matter once the report is out


def ytd(symbol: str, revenue: list[float], dedt: list[float], net: list[float]) -> list[dict]:
    """Year-to-date rows for 2023 Q1..A and 2024 Q1 from single-quarter figures (NaN = not reported)."""
    ends = ["2023-03-31", "2023-06-30", "2023-09-30", "2023-12-31", "2024-03-31"]
    announced = ["2023-04-25", "2023-08-25", "2023-10-25", "2024-03-25", "2024-04-25"]
    types = ["Q1", "H1", "Q3", "A", "Q1"]
    cumulative = [slice(0, 1), slice(0, 2), slice(0, 3), slice(0, 4), slice(4, 5)]
    return [
        {
            "symbol": symbol,
            "end_date": end,
            "ann_date": ann,
            "report_type": kind,
            "revenue": sum(revenue[part]),
            "profit_dedt": sum(dedt[part]),
            "net_profit": sum(net[part]),
        }
        for end, ann, kind, part in zip(ends, announced, types, cumulative, strict=True)
    ]


def test_profit_is_deducted_net_profit_per_quarter_with_net_profit_as_fallback() -> None:
    rows = pd.DataFrame(
        [
            {"end_date": "2023-03-31", "report_type": "Q1", "profit_dedt": 10.0, "net_profit": 12.0},
            {"end_date": "2023-06-30", "report_type": "H1", "profit_dedt": 25.0, "net_profit": 30.0},
            {"end_date": "2023-09-30", "report_type": "Q3", "profit_dedt": NAN, "net_profit": 40.0},
            {"end_date": "2023-12-31", "report_type": "A", "profit_dedt": 50.0, "net_profit": 55.0},
        ]
    ).assign(symbol="600001.SH", ann_date=lambda f: f["end_date"], revenue=NAN)
    # Q1 10 (deducted); Q2 25 - 10 = 15 (deducted); Q3 has no deducted YTD: 40 - 30 = 10 (net);
    # Q4 50 - NaN is unknown in deducted terms: 55 - 40 = 15 (net; never 50 - 40 across measures)
    assert single_quarter(rows)["profit"].tolist() == [10.0, 15.0, 10.0, 15.0]


def test_earnings_reads_deducted_profit_from_the_store_and_net_profit_where_that_is_all(
    settings: Settings,
) -> None:
    """A real SQLite store: X's revenue and net profit rise on one-off gains while its deducted profit
    falls; Y reports net profit only (as SEC filings do), rising, with falling revenue."""
    container = AppContainer(settings)
    days = pd.bdate_range("2023-10-02", "2024-06-28")
    financials = [
        *ytd("600010.SH", [100, 120, 130, 140, 150], [20, 18, 16, 14, 12], [20, 25, 30, 35, 45]),
        *ytd("600011.SH", [50, 45, 40, 35, 30], [NAN] * 5, [10, 12, 14, 16, 18]),
    ]
    MarketDataImportService(SqlMarketDataRepository(container.database)).import_frames(
        "test",
        {
            "securities": pd.DataFrame(
                [
                    {"symbol": s, "name": s, "market": "CN", "exchange": "SH"}
                    for s in ("600010.SH", "600011.SH")
                ]
            ),
            "bars": pd.concat(
                pd.DataFrame(
                    {"symbol": s, "trade_date": days, "adj_factor": 1.0, "volume": 1e6, "amount": 1e7}
                ).assign(open=10.0, high=10.1, low=9.9, close=10.0)
                for s in ("600010.SH", "600011.SH")
            ),
            "financials": pd.DataFrame(financials),
        },
    )
    panel = container.strategy_lab.backtests.panel(
        BacktestWindow(start=date(2024, 1, 2), end=date(2024, 6, 28))
    )
    facts = panel.fundamentals.set_index(["symbol", "end_date"])
    # X's deducted quarters, not its net ones (20, 25, 30, 35, 45); Y falls back to net profit
    assert facts.loc["600010.SH", CATALYST_FIGURES["earnings"]].tolist() == [20.0, 18.0, 16.0, 14.0, 12.0]
    assert facts.loc["600011.SH", "profit"].tolist() == [10.0, 12.0, 14.0, 16.0, 18.0]
    day = pd.Timestamp("2024-04-26")  # the first trading day after the 2024 Q1 reports
    revenue = strategy(3, "revenue").catalyst_flags(panel.closes, panel.fundamentals).loc[day]
    earnings = strategy(3, "earnings").catalyst_flags(panel.closes, panel.fundamentals).loc[day]
    # one quarter: revenue X 150 > 140 on, Y 30 < 35 off; earnings X 12 < 14 off, Y 18 > 16 on
    assert revenue.to_dict() == {"600010.SH": True, "600011.SH": False}
    assert earnings.to_dict() == {"600010.SH": False, "600011.SH": True}
