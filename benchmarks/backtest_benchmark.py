"""Speed of one strategy backtest: template weights + realistic execution + metrics, no LLM.

Builds a synthetic universe of SYMBOLS x DAYS prices (A-shares: price limits, lots of 100 out of
1,000,000, T+1, stamp duty by date) and quarterly reports, renders each family's template for one
parameter set, and times the three stages separately. The loop runs one backtest per split per
iteration, so this is the per-iteration cost beside the LLM call. The template code is trusted here
(rendered in this process from validated parameters) unless `--sandbox`, which computes the weights
the product's way: in the strategy sandbox (one worker per family, a confined child per strategy),
and also prints the worker's start-up time.

    .venv/bin/python benchmarks/backtest_benchmark.py                      # 300 symbols x 10 years
    .venv/bin/python benchmarks/backtest_benchmark.py --symbols 1000 --days 2520 --runs 3
    .venv/bin/python benchmarks/backtest_benchmark.py --sandbox            # weights through the sandbox
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd

from stockdesk.backtest.application import (
    ExecutionRules,
    TradingPanel,
    cost_frames,
    equal_weight_benchmark,
    execute,
    performance,
    strategy_metrics,
)
from stockdesk.strategy_lab.application.code_check import check_strategy_code
from stockdesk.strategy_lab.domain.params import StrategyParams, validate_params
from stockdesk.strategy_lab.infrastructure.sandbox.process_sandbox import ProcessSandbox
from stockdesk.strategy_lab.infrastructure.templates.family_templates import FamilyTemplates

COMMON = {"n_stocks": 20, "stop_loss": 0.1, "resample": "W", "resample_offset": 0}
FAMILIES = {
    "momentum": {"momentum_period": 20, "ma_periods": 60, "catalyst_type": "revenue", "catalyst_lookback": 3},
    "mean_reversion": {"lookback": 10, "entry_z": 1.5, "exit_z": 0.0, "trend_ma": 120},
    "volatility": {"vol_period": 60, "max_vol": 0.5, "target_vol": 0.2, "trend_ma": 120},
}


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
    grid["profit"] = rng.lognormal(18, 0.5, len(grid))
    return close, grid


def panel_of(close: pd.DataFrame) -> TradingPanel:
    """Opens equal to closes, 10 % limits on the previous close (rarely hit by 2 % daily moves)."""
    previous = close.shift(1)
    return TradingPanel(
        close=close,
        open=close,
        raw_open=close,
        limit_up=(previous * 1.1).round(2),
        limit_down=(previous * 0.9).round(2),
        markets=dict.fromkeys(close.columns, "CN"),
    )


Weights = Callable[[pd.DataFrame, pd.DataFrame], pd.DataFrame]


@contextmanager
def in_process(templates: FamilyTemplates, params: StrategyParams) -> Iterator[Weights]:
    code = templates.render(params)
    check_strategy_code(code)
    namespace: dict = {}
    exec(compile(code, "<strategy>", "exec"), namespace)  # trusted: rendered here from validated params
    yield namespace["generate_weights"]


@contextmanager
def in_sandbox(templates: FamilyTemplates, params: StrategyParams) -> Iterator[Weights]:
    """The product's path: the worker starts on the first call (timed apart), a fresh child per call."""
    with ProcessSandbox(templates).session() as session:
        one_day = pd.DataFrame({"A": [1.0]}, index=pd.DatetimeIndex(["2024-01-02"]))
        t0 = time.perf_counter()
        session.weights(params, one_day, pd.DataFrame(columns=["symbol", "end_date", "ann_date"]))
        print(f"  sandbox worker start and a one-day strategy: {(time.perf_counter() - t0) * 1000:.0f} ms")
        yield lambda close, fundamentals: session.weights(params, close, fundamentals)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--symbols", type=int, default=300)
    parser.add_argument("--days", type=int, default=2520)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sandbox", action="store_true", help="weights through the strategy sandbox")
    args = parser.parse_args()

    close, fundamentals = universe(args.symbols, args.days)
    panel = panel_of(close)
    templates = FamilyTemplates()
    strategies = in_sandbox if args.sandbox else in_process
    print(f"universe: {args.symbols} symbols x {args.days} days, {args.runs} runs per family")
    print(f"weights: {'in the strategy sandbox' if args.sandbox else 'in this process'}")
    for family, values in FAMILIES.items():
        params = validate_params({"strategy_type": family, **values, **COMMON})
        print(f"{family}:")
        with strategies(templates, params) as weights:
            run_family(args.runs, weights, (close, fundamentals), panel, params)


def run_family(
    runs: int,
    weights: Weights,
    data: tuple[pd.DataFrame, pd.DataFrame],
    panel: TradingPanel,
    params: StrategyParams,
) -> None:
    """Times the three stages `runs` times and prints the best and median of each."""
    close, fundamentals = data
    buy, sell = cost_frames(panel, slippage=0.0005)
    rules = ExecutionRules()
    timings: dict[str, list[float]] = {"weights": [], "execute": [], "metrics": []}
    tracemalloc.start()
    for _ in range(runs):
        t0 = time.perf_counter()
        targets = weights(close, fundamentals)
        t1 = time.perf_counter()
        sim = execute(panel, targets, stop_loss=params.stop_loss, buy_cost=buy, sell_cost=sell, rules=rules)
        t2 = time.perf_counter()
        metrics = strategy_metrics(sim)
        performance(equal_weight_benchmark(close))
        t3 = time.perf_counter()
        for stage, seconds in zip(timings, (t1 - t0, t2 - t1, t3 - t2), strict=True):
            timings[stage].append(seconds)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  {len(targets)} rebalances")
    for stage, values in timings.items():
        print(f"  {stage:>8}: best {min(values) * 1000:8.1f} ms  median {np.median(values) * 1e3:8.1f} ms")
    total = sum(min(v) for v in timings.values())
    print(f"     total: best {total * 1000:8.1f} ms per backtest; peak traced memory {peak / 2**20:.0f} MiB")
    print(
        f"    sanity: {metrics.trades} trades, Sharpe {metrics.sharpe:.2f}, "
        f"max drawdown {metrics.max_drawdown:.1%}"
    )


if __name__ == "__main__":
    main()
