"""Benchmark: `evaluate --mode rules` over N generated A-shares x 3 years, monthly (every 20 days).

Target: 300 symbols in under a minute on this 2-core machine. Prints points/s for the verdicts
(the durable tasks: signals in batch + the rules verdict) and for the scoring, separately. The
store is a fresh SQLite file in a temporary home; importing it is not timed.
Usage: python benchmarks/evaluate_benchmark.py [--symbols 300] [--every 20] [--horizons 5,20,60]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.evaluation.market generates the data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--symbols", type=int, default=300)
    parser.add_argument("--every", type=int, default=20)
    parser.add_argument("--horizons", default="5,20,60", help="comma list; the issue's target: all three")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="stockdesk-bench-")
    os.environ["STOCKDESK_HOME"] = home

    from tests.evaluation.market import populate, symbols

    from stockdesk.entrypoints.container import AppContainer
    from stockdesk.evaluation.domain.dtos import EvaluationConfig
    from stockdesk.shared.config import Settings

    names = symbols(args.symbols)
    container = AppContainer(Settings())
    clock = time.perf_counter()
    populate(container.database, names, start=date(2020, 6, 1), end=date(2024, 6, 28))
    print(f"store: {len(names)} symbols imported in {time.perf_counter() - clock:.1f} s (not timed below)")

    config = EvaluationConfig(
        symbols=names,
        start=date(2021, 6, 1),
        end=date(2024, 5, 31),
        every=args.every,
        horizons=[int(h) for h in args.horizons.split(",")],
        mode="rules",
    )
    service = container.evaluation.service
    clock = time.perf_counter()
    job = service.start(config)
    planned = time.perf_counter() - clock
    clock = time.perf_counter()
    service.execute(job.job_id)
    verdicts = time.perf_counter() - clock
    clock = time.perf_counter()
    report = service.report(job.job_id)
    scoring = time.perf_counter() - clock
    points = len(report.points)
    total = planned + verdicts + scoring
    print(f"points: {points} ({len(names)} symbols x {points // max(len(names), 1)} dates)")
    print(f"plan    : {planned:6.1f} s")
    print(f"verdicts: {verdicts:6.1f} s = {points / verdicts:8.1f} points/s")
    print(f"scoring : {scoring:6.1f} s = {points / scoring:8.1f} points/s (metrics, bootstrap, portfolios)")
    print(f"total   : {total:6.1f} s = {points / total:8.1f} points/s  (target: under 60 s for 300 symbols)")
    container.close()


if __name__ == "__main__":
    main()
