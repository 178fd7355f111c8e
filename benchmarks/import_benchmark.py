"""Import throughput of the real write path on a market-sized synthetic dataset.

Generates bars and valuations for N symbols x D trading days (geometric random walks, numpy,
no per-row loops), imports them chunk by chunk (a few hundred symbols per transaction, so memory
stays bounded) into a fresh SQLite file through `MarketDataImportService` (validation included),
and prints rows, seconds and rows/s per table and in total against the target.

    .venv/bin/python benchmarks/import_benchmark.py                      # 5,000 x 750
    .venv/bin/python benchmarks/import_benchmark.py --symbols 20 --days 30
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

TARGET_ROWS_PER_SECOND = 50_000
LAST_DAY = "2024-12-31"


def symbols(count: int) -> list[str]:
    """A-share style codes spread over the three exchanges (600000.SH, 000001.SZ, 830000.BJ...)."""
    bases = (("600000", "SH"), ("000001", "SZ"), ("830000", "BJ"))
    return [f"{int(bases[i % 3][0]) + i // 3:06d}.{bases[i % 3][1]}" for i in range(count)]


def market_frames(names: list[str], days: pd.DatetimeIndex, seed: int) -> dict[str, pd.DataFrame]:
    """Bars and valuations of `names` over `days` as canonical frames (symbol-major order)."""
    rng = np.random.default_rng(seed)
    n, d = len(names), len(days)
    drift = rng.normal(0.0003, 0.0005, (n, 1))
    vol = rng.uniform(0.01, 0.04, (n, 1))
    start = np.exp(rng.uniform(np.log(3.0), np.log(300.0), (n, 1)))
    returns = drift + vol * rng.standard_normal((n, d))
    close = np.round(start * np.exp(np.cumsum(returns, axis=1)), 2).clip(0.01)
    pre_close = np.concatenate([np.round(start, 2), close[:, :-1]], axis=1)
    gap = 1 + vol * rng.standard_normal((n, d)) * 0.3
    open_ = np.round(pre_close * gap, 2).clip(0.01)
    high = np.maximum(open_, close) * (1 + np.abs(rng.normal(0, 0.5, (n, d))) * vol)
    low = np.minimum(open_, close) * (1 - np.abs(rng.normal(0, 0.5, (n, d))) * vol).clip(0.5)
    shares = np.exp(rng.uniform(np.log(2e8), np.log(2e10), (n, 1)))
    float_share = rng.uniform(0.3, 1.0, (n, 1))
    turnover = np.exp(rng.normal(np.log(1.5), 0.6, (n, d)))  # percent of free float per day
    volume = np.round(shares * float_share * turnover / 100, -2)
    eps = np.round(close[:, :1] / rng.uniform(8, 60, (n, 1)), 4)
    bps = np.round(close[:, :1] / rng.uniform(0.8, 8, (n, 1)), 4)
    sales_ps = np.abs(eps) * rng.uniform(3, 20, (n, 1))
    flat = {"symbol": np.repeat(np.array(names, dtype=object), d), "trade_date": np.tile(days.to_numpy(), n)}
    bars = pd.DataFrame(
        {
            **flat,
            "open": open_.ravel(),
            "high": np.round(high, 2).ravel(),
            "low": np.round(low, 2).ravel(),
            "close": close.ravel(),
            "pre_close": pre_close.ravel(),
            "pct_chg": np.round((close / pre_close - 1) * 100, 4).ravel(),
            "volume": volume.ravel(),
            "amount": np.round(volume * (open_ + close) / 2, 2).ravel(),
            "adj_factor": np.repeat(np.round(rng.uniform(1, 5, n), 3), d),
        }
    )
    total_mv = close * shares
    valuations = pd.DataFrame(
        {
            **flat,
            "close": close.ravel(),
            "total_mv": total_mv.ravel(),
            "circ_mv": (total_mv * float_share).ravel(),
            "pe": np.round(close / eps, 4).ravel(),
            "pe_ttm": np.round(close / (eps * 1.05), 4).ravel(),
            "pb": np.round(close / bps, 4).ravel(),
            "ps": np.round(close / sales_ps, 4).ravel(),
            "ps_ttm": np.round(close / (sales_ps * 1.05), 4).ravel(),
            "dv_ratio": np.repeat(np.round(rng.uniform(0, 4, n), 4), d),
            "dv_ttm": np.repeat(np.round(rng.uniform(0, 4, n), 4), d),
            "turnover_rate": np.round(turnover, 4).ravel(),
            "is_derived": False,
        }
    )
    return {"bars": bars, "valuations": valuations}


Timing = tuple[int, float, float]  # rows, wall seconds, CPU seconds of this process


def run(n_symbols: int, n_days: int, chunk_symbols: int, folder: Path) -> dict[str, Timing]:
    """Import everything; rows, wall and CPU seconds per table (generation time excluded).

    Wall time is what counts; CPU time shows how much of it was waiting on the disk.
    """
    database = Database(f"sqlite:///{folder / 'benchmark.db'}")
    database.ensure_schema()
    service = MarketDataImportService(SqlMarketDataRepository(database))
    days = pd.bdate_range(end=LAST_DAY, periods=n_days)
    names = symbols(n_symbols)
    rows: dict[str, int] = defaultdict(int)
    seconds: dict[str, float] = defaultdict(float)
    cpu: dict[str, float] = defaultdict(float)
    for number, first in enumerate(range(0, n_symbols, chunk_symbols)):
        frames = market_frames(names[first : first + chunk_symbols], days, seed=number)
        for kind, frame in frames.items():
            started, started_cpu = time.perf_counter(), time.process_time()
            result = service.import_frames(f"{kind} chunk {number}", {kind: frame})
            seconds[kind] += time.perf_counter() - started
            cpu[kind] += time.process_time() - started_cpu
            rows[kind] += result.rows[kind]
    database.dispose()
    return {kind: (rows[kind], seconds[kind], cpu[kind]) for kind in rows}


def report(results: dict[str, Timing]) -> bool:
    total = tuple(sum(values) for values in zip(*results.values(), strict=True))
    print(f"{'table':<12}{'rows':>12}{'seconds':>10}{'cpu s':>10}{'rows/s':>12}")
    for kind, (rows, seconds, cpu) in [*results.items(), ("total", total)]:
        print(f"{kind:<12}{rows:>12,}{seconds:>10.2f}{cpu:>10.2f}{rows / seconds:>12,.0f}")
    met = total[0] / total[1] >= TARGET_ROWS_PER_SECOND
    print(f"target: >= {TARGET_ROWS_PER_SECOND:,} rows/s total -> {'met' if met else 'NOT met'}")
    return met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--symbols", type=int, default=5000)
    parser.add_argument("--days", type=int, default=750)
    parser.add_argument("--chunk-symbols", type=int, default=200, help="symbols per transaction")
    args = parser.parse_args()
    print(f"{args.symbols:,} symbols x {args.days:,} trading days, {args.chunk_symbols} symbols per chunk")
    with tempfile.TemporaryDirectory(prefix="stockdesk-bench-") as folder:
        report(run(args.symbols, args.days, args.chunk_symbols, Path(folder)))


if __name__ == "__main__":
    main()
