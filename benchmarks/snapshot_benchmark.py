"""Benchmark: build the valuation, technical and financial snapshots for many generated symbols.

Prints symbols/s per builder and overall, each beside the per-symbol reference of issue 20:
stock_helper's pure-Python snapshot builder at about 560 symbols/s (measured by the issue on 2,000
symbols x 750 days + 12 quarters, not in this run; the builders of a single analysis must be at
least as fast). Data is generated in memory (no database), so the figure is the cost of the
computation itself; the CPU-time rate beside the wall-clock one shows how much a busy machine took.
Usage: python benchmarks/snapshot_benchmark.py [--symbols N] [--builder valuation|technical|financial]
"""

from __future__ import annotations

import argparse
import time
from datetime import date, timedelta

import numpy as np
import pandas as pd

from stockdesk.research.application.snapshot.financial_snapshot_builder import FinancialSnapshotBuilder
from stockdesk.research.application.snapshot.technical_snapshot_builder import TechnicalSnapshotBuilder
from stockdesk.research.application.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder
from stockdesk.research.domain.dtos.financial import AuditFinanceRecordInput
from stockdesk.research.domain.dtos.technical import PriceBarInput
from stockdesk.research.domain.dtos.valuation import (
    FinanceRecordInput,
    StockOverviewInput,
    ValuationDailyInput,
)

AS_OF = date(2024, 6, 28)
DAYS = pd.bdate_range(end=AS_OF, periods=750)
QUARTER_ENDS = pd.date_range(end=AS_OF, periods=12, freq="QE")
BUILDERS = ("valuation", "technical", "financial")
REFERENCE_RATE = 560.0  # symbols/s: stock_helper's per-symbol builder as measured by issue 20


def generate(rng: np.random.Generator) -> tuple:
    closes = 20 * np.exp(np.cumsum(rng.normal(0, 0.02, len(DAYS))))
    pe = closes / 1.2
    days = [d.date() for d in DAYS]
    dailies = [
        ValuationDailyInput(trade_date=d, close=c, pe_ttm=p, pb=c / 8, ps_ttm=c / 5)
        for d, c, p in zip(days, closes, pe, strict=True)
    ]
    bars = [
        PriceBarInput(trade_date=d, open=c, high=c * 1.01, low=c * 0.99, close=c, volume=1e6, adj_factor=1.0)
        for d, c in zip(days[-400:], closes[-400:], strict=True)
    ]
    eps = np.tile([0.3, 0.6, 0.9, 1.2], 3) * rng.uniform(0.8, 1.2)
    finance, audit = [], []
    for end, e in zip(QUARTER_ENDS, eps, strict=True):
        common = dict(end_date=end.date(), ann_date=end.date() + timedelta(days=30), eps=e)
        finance.append(
            FinanceRecordInput(
                **common,
                bps=8.0,
                roe=12.0,
                grossprofit_margin=30.0,
                netprofit_margin=15.0,
                debt_to_assets=45.0,
                profit_dedt=e * 1e9,
            )
        )
        audit.append(
            AuditFinanceRecordInput(
                **common,
                revenue=e * 5e9,
                profit_dedt=e * 1e9,
                ocfps=e * 1.2,
                grossprofit_margin=30.0,
                netprofit_margin=15.0,
                roe=12.0,
            )
        )
    overview = StockOverviewInput(
        symbol="X",
        stock_name="x",
        trade_date=AS_OF,
        close=closes[-1],
        total_mv=closes[-1] * 1e9,
        pe_ttm=pe[-1],
        pb=closes[-1] / 8,
        ps_ttm=closes[-1] / 5,
    )
    return overview, dailies, finance, bars, audit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--symbols", type=int, default=5000)
    parser.add_argument("--builder", action="append", choices=BUILDERS, help="only these (repeatable)")
    args = parser.parse_args()
    rng = np.random.default_rng(42)
    print(f"generating inputs for {args.symbols} symbols ...", flush=True)
    inputs = [generate(rng) for _ in range(args.symbols)]
    builders = {
        "valuation": lambda i: ValuationSnapshotBuilder().build(i[0], i[1], i[2], AS_OF),
        "technical": lambda i: TechnicalSnapshotBuilder().build("X", "x", i[3], AS_OF),
        "financial": lambda i: FinancialSnapshotBuilder().build("X", "x", "industry", i[4], AS_OF),
    }
    chosen = args.builder or list(BUILDERS)
    total = 0.0
    for name, build in builders.items():
        if name not in chosen:
            continue
        started, cpu_started = time.perf_counter(), time.process_time()
        for item in inputs:
            build(item)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        total += seconds
        rate = args.symbols / seconds
        print(
            f"{name:9s} snapshots: {args.symbols} symbols in {seconds:7.2f} s = {rate:8.1f} symbols/s"
            f" ({rate / REFERENCE_RATE:4.1f}x the ~{REFERENCE_RATE:.0f}/s reference; CPU time"
            f" {args.symbols / cpu:8.1f} symbols/s)"
        )
    label = "all three" if set(chosen) == set(BUILDERS) else "together"
    print(f"{label:9s} : {args.symbols} symbols in {total:7.2f} s = {args.symbols / total:8.1f} symbols/s")


if __name__ == "__main__":
    main()
