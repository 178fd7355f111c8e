"""Speed of the financial-report states of `evaluate --mode rules` (the batch path's `_Reports`).

A state is what the reports announced by a date give the valuation (`record_figures`) and the
financial auditor (`latest_rule_period`); it changes only on an announcement, so a symbol evaluated
over three years needs about 13. Generates the evaluation tests' market (quarterly reports with
restatements), shapes the reports as the store returns them (every stored column, dates as
Timestamps, report types filled in), and builds every state the business days of the last YEARS
years reach, symbol by symbol, as the rules evaluation does.

On 2 shared cores, 300 symbols x 3 years (4,050 states): 32 ms per state through pydantic records
and merge-based TTM (2 min 11 s), about 2 ms with the state's rows taken straight from the versions
and the finance arithmetic in numpy (9 s).

    .venv/bin/python benchmarks/finance_state_benchmark.py                  # 300 symbols x 3 years
    .venv/bin/python benchmarks/finance_state_benchmark.py --symbols 50 --profile
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from datetime import date
from pathlib import Path

import pandas as pd

from stockdesk.data_engineering.domain import frames as F
from stockdesk.research.application.snapshot.rules_fields import _Reports


def store_versions(count: int) -> tuple[dict[str, pd.DataFrame], date]:
    """The generated reports of `count` symbols as `financial_versions` hands them over, per symbol,
    and the market's last day."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tests.evaluation
    from tests.evaluation.market import END, market_frames, symbols

    frame = market_frames(symbols(count))["financials"]
    for column in ("end_date", "ann_date"):
        frame[column] = pd.to_datetime(frame[column])
    frame["report_type"] = frame["end_date"].dt.month.map(F.report_type_of)
    for column in F.FINANCIAL_COLUMNS:
        if column not in frame.columns:
            frame[column] = None  # a column no report fills comes back from SQL as None
    frame = frame[F.FINANCIAL_COLUMNS]
    return dict(tuple(frame.groupby("symbol", sort=False))), END


def build_states(versions: dict[str, pd.DataFrame], days: list[date]) -> int:
    states = 0
    for frame in versions.values():
        reports = _Reports(frame)
        for day in days:
            reports.state(day)
        states += sum(state is not None for state in reports._states.values())
    return states


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--symbols", type=int, default=300)
    parser.add_argument("--years", type=int, default=3)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="print the top functions of one run")
    args = parser.parse_args()

    versions, end = store_versions(args.symbols)
    days = [d.date() for d in pd.bdate_range(end - pd.DateOffset(years=args.years), end)]
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(build_states, versions, days)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    for _ in range(args.runs):
        started = time.perf_counter()
        states = build_states(versions, days)
        seconds = time.perf_counter() - started
        print(
            f"{args.symbols} symbols x {args.years} years: {states} states in {seconds:.2f} s = "
            f"{seconds / states * 1000:.2f} ms per state, {states / seconds:,.0f} states/s"
        )


if __name__ == "__main__":
    main()
