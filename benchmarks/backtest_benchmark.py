"""Speed of one strategy backtest: template weights + vectorised simulation + metrics, no LLM.

Builds a synthetic universe of SYMBOLS x DAYS adjusted closes and quarterly reports, renders the
momentum template for one parameter set, and times the three stages separately. The loop runs one
backtest per iteration, so this is the per-iteration cost beside the LLM call.

    .venv/bin/python benchmarks/backtest_benchmark.py                      # 300 symbols x 10 years
    .venv/bin/python benchmarks/backtest_benchmark.py --symbols 1000 --days 2520 --runs 3
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
import pandas as pd

from stockdesk.shared.execution import cost_rates, equal_weight_benchmark, simulate
from stockdesk.strategy_lab.application.backtest import performance, strategy_metrics
from stockdesk.strategy_lab.application.code_check import load_strategy
from stockdesk.strategy_lab.application.code_generator import TemplateCodeGenerator
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams
from stockdesk.strategy_lab.infrastructure.templates.momentum_template import MomentumTemplate

PARAMS = MomentumStrategyParams(
    momentum_period=20,
    ma_periods=60,
    catalyst_type="revenue",
    catalyst_lookback=3,
    n_stocks=20,
    stop_loss=0.1,
    resample="W",
    resample_offset=0,
)


def universe(symbols: int, days: int, seed: int = 7) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    dates = pd.bdate_range(end="2024-06-28", periods=days)
    names = [f"{i:06d}.SZ" for i in range(symbols)]
    steps = rng.normal(0.0003, 0.02, (days, symbols))
    close = pd.DataFrame(10 * np.exp(np.cumsum(steps, axis=0)), index=dates, columns=names)
    quarters = pd.date_range(dates[0] - pd.Timedelta(days=800), dates[-1], freq="QE-DEC")
    grid = pd.MultiIndex.from_product([names, quarters], names=["symbol", "end_date"]).to_frame(index=False)
    grid["ann_date"] = grid["end_date"] + pd.Timedelta(days=30)
    grid["revenue"] = rng.lognormal(20, 0.3, len(grid))
    grid["roe"] = rng.normal(3, 1, len(grid))
    return close, grid


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--symbols", type=int, default=300)
    parser.add_argument("--days", type=int, default=2520)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    close, fundamentals = universe(args.symbols, args.days)
    program = load_strategy(TemplateCodeGenerator(MomentumTemplate()).render(PARAMS))
    buy, sell = cost_rates(dict.fromkeys(close.columns, "CN"))
    timings: dict[str, list[float]] = {"weights": [], "simulate": [], "metrics": []}
    tracemalloc.start()
    for _ in range(args.runs):
        t0 = time.perf_counter()
        targets = program.generate_weights(close, fundamentals)
        t1 = time.perf_counter()
        sim = simulate(close, targets, stop_loss=program.stop_loss, buy_cost=buy, sell_cost=sell)
        t2 = time.perf_counter()
        metrics = strategy_metrics(sim)
        performance(equal_weight_benchmark(close))
        t3 = time.perf_counter()
        for stage, seconds in zip(timings, (t1 - t0, t2 - t1, t3 - t2), strict=True):
            timings[stage].append(seconds)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    print(f"universe: {args.symbols} symbols x {args.days} days, {len(targets)} rebalances, {args.runs} runs")
    for stage, values in timings.items():
        print(f"{stage:>9}: best {min(values) * 1000:8.1f} ms   median {np.median(values) * 1000:8.1f} ms")
    total = sum(min(v) for v in timings.values())
    print(f"    total: best {total * 1000:8.1f} ms per backtest")
    print(f"peak traced memory: {peak / 2**20:.0f} MiB")
    print(
        f"sanity: {metrics.trades} trades, Sharpe {metrics.sharpe:.2f}, "
        f"max drawdown {metrics.max_drawdown:.1%}"
    )


if __name__ == "__main__":
    main()
