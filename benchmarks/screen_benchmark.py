"""Benchmark: the whole-market screen's figures for 5,000 symbols, and loading its panel from SQLite.

(a) compute: the screen's figures of N generated symbols (750 valuation days, 400 bars, 12 quarters:
    `snapshot_benchmark.generate`) once loaded, against the three per-symbol snapshot builders on a
    sample of the same inputs; prints seconds, symbols/s of each and the ratio (target: < 1 s for
    5,000 symbols, at least 20x the ~560 symbols/s per-symbol reference of issue 20).
(b) load: a fresh SQLite file filled by the project's importer (`import_benchmark`'s bars and
    valuations, plus securities and 12 quarters per symbol), then `ScreenPanelReader.load` (one read
    per table); prints the rows read per second beside the importer's rows written per second.
No assertions: the figures are printed.

    .venv/bin/python benchmarks/screen_benchmark.py                    # 5,000 symbols, both parts
    .venv/bin/python benchmarks/screen_benchmark.py --symbols 500 --part compute
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import date
from pathlib import Path

import import_benchmark
import numpy as np
import pandas as pd
import snapshot_benchmark

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.application.use_cases import (
    GetMarketFramesUseCase,
    GetStockBasicInfoUseCase,
    ListSecuritiesUseCase,
)
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.research.application.screen.figures_builder import ScreenFiguresBuilder
from stockdesk.research.application.screen.long_rows import as_categories
from stockdesk.research.application.screen.panel import ScreenPanel, ScreenPanelReader
from stockdesk.research.application.snapshot.financial_snapshot_builder import FinancialSnapshotBuilder
from stockdesk.research.application.snapshot.technical_snapshot_builder import TechnicalSnapshotBuilder
from stockdesk.research.application.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder
from stockdesk.shared.db import Database

AS_OF = snapshot_benchmark.AS_OF
REFERENCE_RATE = getattr(snapshot_benchmark, "REFERENCE_RATE", 560.0)  # stock_helper, per issue 20
BUILDER_SAMPLE = 300  # symbols the per-symbol builders run on (their rate, not their total)
BAR_FIELDS = ("trade_date", "close", "adj_factor")
VALUATION_FIELDS = ("trade_date", "close", "pe_ttm", "pb", "ps_ttm")


def panel_of(inputs: list[tuple], names: list[str]) -> ScreenPanel:
    """The generated per-symbol inputs as the panel's long frames (what the adapter would read)."""
    bars, valuations, reports = [], [], []
    for symbol, (_overview, dailies, finance, price_bars, audit) in zip(names, inputs, strict=True):
        bars.append(
            pd.DataFrame({f: [getattr(b, f) for b in price_bars] for f in BAR_FIELDS}).assign(symbol=symbol)
        )
        daily = pd.DataFrame({f: [getattr(d, f) for d in dailies] for f in VALUATION_FIELDS})
        valuations.append(daily.assign(symbol=symbol, total_mv=daily["close"] * 1e9))
        merged = [{**a.model_dump(), **f.model_dump()} for f, a in zip(finance, audit, strict=True)]
        reports.append(pd.DataFrame(merged).assign(symbol=symbol))
    frames = [pd.concat(parts, ignore_index=True) for parts in (bars, valuations, reports)]
    for frame, column in ((frames[0], "trade_date"), (frames[1], "trade_date"), (frames[2], "end_date")):
        frame[column] = pd.to_datetime(frame[column])
    frames[2]["ann_date"] = pd.to_datetime(frames[2]["ann_date"])
    securities = pd.DataFrame({"symbol": names, "name": names, "market": "CN"})
    bars, valuations, reports = (as_categories(frame, names) for frame in frames)  # as the adapter gives them
    return ScreenPanel(AS_OF, securities, bars, valuations, reports)


def compute(count: int) -> None:
    rng = np.random.default_rng(42)
    print(f"(a) generating {count:,} symbols x 750 days + 12 quarters ...", flush=True)
    inputs = [snapshot_benchmark.generate(rng) for _ in range(count)]
    names = import_benchmark.symbols(count)
    panel = panel_of(inputs, names)
    builder = ScreenFiguresBuilder()
    builder.figures(panel)  # warm-up: imports, first allocations
    started, cpu = time.perf_counter(), time.process_time()
    figures = builder.figures(panel)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    sample = inputs[:BUILDER_SAMPLE]
    valuation, technical, financial = (
        ValuationSnapshotBuilder(),
        TechnicalSnapshotBuilder(),
        FinancialSnapshotBuilder(),
    )
    begun = time.perf_counter()
    for overview, dailies, finance, bars, audit in sample:
        valuation.build(overview, dailies, finance, AS_OF)
        technical.build("X", "x", bars, AS_OF)
        financial.build("X", "x", "industry", audit, AS_OF)
    per_symbol = len(sample) / (time.perf_counter() - begun)
    rate = count / seconds
    print(f"    screen figures : {len(figures):,} symbols in {seconds:6.3f} s = {rate:10,.0f} symbols/s "
          f"(CPU {cpu:.3f} s; target < 1 s for 5,000)")  # fmt: skip
    print(f"    per-symbol     : the three builders on {len(sample)} symbols = {per_symbol:10,.0f} symbols/s")
    print(f"    ratio          : {rate / per_symbol:6.1f}x the per-symbol builders, "
          f"{rate / REFERENCE_RATE:6.1f}x the ~{REFERENCE_RATE:.0f}/s reference (target >= 20x)")  # fmt: skip


def reports_frame(names: list[str], seed: int) -> pd.DataFrame:
    """12 quarters per symbol, announced 30 days after each period end (numpy, no per-row loop)."""
    rng = np.random.default_rng(seed)
    ends = pd.date_range(end=import_benchmark.LAST_DAY, periods=12, freq="QE")
    count = len(names)
    scale = np.tile(np.array([1, 2, 3, 4] * 3, dtype=float), (count, 1)) * rng.uniform(0.5, 2, (count, 1))
    flat = lambda values: np.round(values, 4).ravel()  # noqa: E731
    return pd.DataFrame(
        {
            "symbol": np.repeat(np.array(names, dtype=object), 12),
            "end_date": np.tile(ends.to_numpy(), count),
            "ann_date": np.tile((ends + pd.Timedelta(days=30)).to_numpy(), count),
            "eps": flat(0.3 * scale), "bps": flat(8 + scale), "roe": flat(3 * scale),
            "grossprofit_margin": flat(rng.uniform(10, 60, (count, 12))),
            "netprofit_margin": flat(rng.uniform(2, 30, (count, 12))),
            "debt_to_assets": flat(rng.uniform(20, 80, (count, 12))), "profit_dedt": flat(1e8 * scale),
            "net_profit": flat(1.1e8 * scale), "revenue": flat(1e9 * scale), "ocfps": flat(0.4 * scale),
        }
    )  # fmt: skip


def load(count: int, days: int, chunk: int) -> None:
    print(f"(b) importing {count:,} symbols x {days:,} days into a fresh SQLite file ...", flush=True)
    with tempfile.TemporaryDirectory(prefix="stockdesk-screen-") as folder:
        timings = import_benchmark.run(count, days, chunk, Path(folder))
        database = Database(f"sqlite:///{Path(folder) / 'benchmark.db'}")
        repository = SqlMarketDataRepository(database)
        service = MarketDataImportService(repository)
        names = import_benchmark.symbols(count)
        securities = pd.DataFrame(
            {"symbol": names, "name": names, "market": "CN", "exchange": [n[-2:] for n in names]}
        )
        started = time.perf_counter()
        written = service.import_frames("securities", {"securities": securities}).rows["securities"]
        for first in range(0, count, chunk):
            part = reports_frame(names[first : first + chunk], seed=first)
            written += service.import_frames(f"reports {first}", {"financials": part}).rows["financials"]
        extra = time.perf_counter() - started
        rows_written = sum(rows for rows, _, _ in timings.values()) + written
        import_seconds = sum(seconds for _, seconds, _ in timings.values()) + extra
        adapter = ScreenPanelReader(
            ListSecuritiesUseCase(repository),
            GetStockBasicInfoUseCase(repository),
            GetMarketFramesUseCase(repository),
        )
        as_of = date.fromisoformat(import_benchmark.LAST_DAY)
        started, cpu = time.perf_counter(), time.process_time()
        panel = adapter.load(as_of)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        rows_read = len(panel.securities) + len(panel.bars) + len(panel.valuations) + len(panel.financials)
        started = time.perf_counter()
        ScreenFiguresBuilder().figures(panel)
        figures_seconds = time.perf_counter() - started
        database.dispose()
    import_rate, load_rate = rows_written / import_seconds, rows_read / seconds
    print(f"    importer       : {rows_written:>12,} rows in {import_seconds:7.2f} s = "
          f"{import_rate:10,.0f} rows/s")  # fmt: skip
    print(f"    panel load     : {rows_read:>12,} rows in {seconds:7.2f} s = {load_rate:10,.0f} rows/s "
          f"(CPU {cpu:.2f} s; bars {len(panel.bars):,}, valuations {len(panel.valuations):,}, "
          f"reports {len(panel.financials):,})")  # fmt: skip
    print(f"    load / import  : {load_rate / import_rate:6.2f}x the importer's row rate")
    together = seconds + figures_seconds
    print(
        f"    figures        : {figures_seconds:7.3f} s on the loaded panel; {together:.2f} s with the load"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--symbols", type=int, default=5000)
    parser.add_argument("--days", type=int, default=750, help="trading days imported for part (b)")
    parser.add_argument("--chunk-symbols", type=int, default=200, help="symbols per import transaction")
    parser.add_argument("--part", choices=("compute", "load", "both"), default="both")
    args = parser.parse_args()
    if args.part in ("compute", "both"):
        compute(args.symbols)
    if args.part in ("load", "both"):
        load(args.symbols, args.days, args.chunk_symbols)


if __name__ == "__main__":
    main()
