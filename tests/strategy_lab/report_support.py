"""A hand-built strategy run and its replay (no LLM, no sandbox) for the run report and web page tests.

The strategy's NAV is pinned at month ends so that its monthly returns are known by hand:
start 2023-11-01 at 1.0; Nov end 1.02 (+2 %), Dec end 1.071 (1.02 * 1.05: +5 %),
Jan end 1.01745 (1.071 * 0.95: -5 %), Feb end 1.119195 (1.01745 * 1.10: +10 %); days in between are
linear between those anchors (month-end returns do not depend on them).
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import numpy as np
import pandas as pd

from stockdesk.backtest.application import CostModel, PerformanceMetrics, StrategyMetrics
from stockdesk.strategy_lab.domain.dtos import (
    BacktestResult,
    BacktestWindow,
    ChampionSplits,
    EquityPoint,
    EquityTurnover,
    Fold,
    IterationRecord,
    IterationStatus,
    OverfittingFigures,
    Period,
    RunConfig,
    RunStatus,
    RunSummary,
    SplitFigures,
    SplitPlan,
    StrategyRunDTO,
    TradeRecord,
)
from stockdesk.strategy_lab.domain.params import MeanReversionParams, MomentumStrategyParams

RUN_ID = "f" * 32
DAYS = pd.bdate_range("2023-11-01", "2024-02-29")
ANCHORS = {
    "2023-11-01": 1.0,
    "2023-11-30": 1.02,
    "2023-12-29": 1.071,
    "2024-01-31": 1.01745,
    "2024-02-29": 1.119195,
}
MOMENTUM = MomentumStrategyParams(
    momentum_period=20,
    ma_periods=60,
    catalyst_type="revenue",
    catalyst_lookback=3,
    n_stocks=5,
    stop_loss=0.1,
    resample="W",
    resample_offset=0,
)
MEAN_REVERSION = MeanReversionParams(
    lookback=10,
    entry_z=2.0,
    exit_z=0.5,
    trend_ma=120,
    n_stocks=5,
    stop_loss=0.08,
    resample="W",
    resample_offset=1,
)
HOSTILE = "<script>alert('reasoning')</script>"
CODE = "def signal(close):\n    return close < close.rolling(10).mean()  # <b>not bold</b>\n"


def period(start: str, end: str) -> Period:
    days = len(pd.bdate_range(start, end))
    return Period(start=date.fromisoformat(start), end=date.fromisoformat(end), days=days)


PLAN = SplitPlan(
    mode="fixed",
    folds=[Fold(in_sample=period("2023-11-01", "2023-12-29"), validation=period("2024-01-02", "2024-01-31"))],
    holdout=period("2024-02-01", "2024-02-29"),
)


def metrics(
    sharpe: float, annual: float, drawdown: float, trades: int = 0, turnover: float = 0.0
) -> StrategyMetrics:
    return StrategyMetrics(
        total_return=annual / 2,
        annual_return=annual,
        sharpe=sharpe,
        sortino=sharpe * 1.3,
        max_drawdown=drawdown,
        calmar=annual / abs(drawdown) if drawdown else 0.0,
        volatility=0.2,
        days=20,
        turnover=turnover,
        win_rate=0.5,
        trades=trades,
    )


def benchmark(sharpe: float, annual: float, drawdown: float) -> PerformanceMetrics:
    return PerformanceMetrics(
        **metrics(sharpe, annual, drawdown).model_dump(include=set(PerformanceMetrics.model_fields))
    )


def split(key: str, net: float, gross: float, bench: float) -> SplitFigures:
    periods = {"in_sample": PLAN.in_sample, "validation": [PLAN.validation], "holdout": [PLAN.holdout]}[key]
    return SplitFigures(
        **metrics(net, net / 10, -0.08, trades=40, turnover=12.5).model_dump(),
        periods=periods,
        gross=metrics(gross, gross / 10, -0.07, trades=40, turnover=12.5),
        benchmark=benchmark(bench, bench / 10, -0.12),
    )


SUMMARY = RunSummary(
    plan=PLAN,
    splits=ChampionSplits(
        in_sample=split("in_sample", 1.87, 2.04, 0.55),
        validation=split("validation", 1.23, 1.41, 0.36),
        holdout=split("holdout", 0.41, 0.58, -0.22),
    ),
    overfitting=OverfittingFigures(
        trials=12,
        deflated_sharpe=0.62,
        validation_sharpe_per_day=0.0812,
        expected_max_sharpe_per_day=0.0451,
        skewness=-0.31,
        kurtosis=4.12,
        observations=250,
        pbo=0.3,
        partitions=8,
        combinations=70,
        notes=["overfitting note"],
    ),
    notes=["overfitting note", "summary note"],
)


def iterations(run_id: str = RUN_ID) -> list[IterationRecord]:
    started = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
    first = IterationRecord(
        run_id=run_id,
        number=1,
        status=IterationStatus.RAN,
        params=MOMENTUM,
        reasoning="Momentum first.",
        code="def signal(): ...",
        metrics=metrics(1.11, 0.12, -0.2, trades=30),
        validation=metrics(0.77, 0.06, -0.1),
        attempts=1,
        started_at=started,
    )
    failed = IterationRecord(
        run_id=run_id,
        number=2,
        status=IterationStatus.GENERATION_FAILED,
        attempts=2,
        started_at=started,
        errors=[
            {
                "field_path": "params.lookback",
                "error_type": "wrong_family_field",
                "given_value": "<img src=x onerror=alert(1)>",
                "allowed_values": None,
                "suggestion": "lookback belongs to mean_reversion",
                "message": "not a momentum parameter",
            }
        ],
    )
    champion = IterationRecord(
        run_id=run_id,
        number=3,
        status=IterationStatus.BEAT_BENCHMARK,
        params=MEAN_REVERSION,
        reasoning=f"Buy the dips {HOSTILE} in calm stocks.",
        code=CODE,
        metrics=metrics(1.87, 0.2, -0.15, trades=40),
        validation=metrics(1.23, 0.1, -0.08),
        attempts=1,
        is_champion=True,
        started_at=started,
    )
    return [first, failed, champion]


def run(*, summary: RunSummary | None = SUMMARY, status: RunStatus = RunStatus.COMPLETED) -> StrategyRunDTO:
    records = iterations()
    config = RunConfig(
        iterations=3,
        window=BacktestWindow(universe=["600001.SH", "600002.SH"], start=DAYS[0].date(), end=DAYS[-1].date()),
    )
    return StrategyRunDTO(
        id=RUN_ID,
        status=status,
        config=config,
        created_at=datetime(2024, 3, 1, 9, 0, tzinfo=UTC),
        champion=records[2],
        iterations=records,
        summary=summary,
    )


def nav() -> np.ndarray:
    anchors = [DAYS.get_loc(pd.Timestamp(day)) for day in ANCHORS]
    return np.interp(np.arange(len(DAYS)), anchors, list(ANCHORS.values()))


def trades(count: int) -> list[TradeRecord]:
    """`count` trades cycling buy, sell, stop; trade i on day i % len(DAYS) with symbol index i."""
    sides = ("buy", "sell", "stop")
    return [
        TradeRecord(
            day=DAYS[i % len(DAYS)].date(), symbol=f"S{i:03d}", side=sides[i % 3], weight=0.01, price=10.0 + i
        )  # type: ignore[arg-type]
        for i in range(count)
    ]


def replay(trade_count: int = 120) -> BacktestResult:
    strategy = nav()
    bench = np.linspace(1.0, 1.03, len(DAYS))
    return BacktestResult(
        params=MEAN_REVERSION,
        universe=["600001.SH", "600002.SH"],
        start=DAYS[0].date(),
        end=DAYS[-1].date(),
        metrics=metrics(1.2, 0.3, -0.05, trades=trade_count),
        gross_metrics=metrics(1.4, 0.32, -0.05),
        benchmark=benchmark(0.4, 0.09, -0.04),
        beat_benchmark=True,
        costs={"CN": CostModel(buy=0.0003, sell=0.0008)},
        equity_curve=[
            EquityPoint(day=d.date(), strategy=float(s), benchmark=float(b), gross=float(s) * 1.001)
            for d, s, b in zip(DAYS, strategy, bench, strict=True)
        ],
        turnover=[
            EquityTurnover(day=d.date(), turnover=0.25 if i % 5 == 0 else 0.0) for i, d in enumerate(DAYS)
        ],
        trades=trades(trade_count),
        blocked_orders=3,
        notes=["replay note"],
    )
