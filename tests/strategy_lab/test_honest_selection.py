"""In-sample / validation / holdout: the loop sees in-sample figures, validation picks the champion,
the holdout is scored once at the end and reaches neither the prompt nor the selection."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.strategy_lab.application.splits import plan_splits
from stockdesk.strategy_lab.domain.dtos import (
    BacktestWindow,
    RunConfig,
    RunStatus,
    SplitConfig,
    StrategyRunDTO,
)
from stockdesk.strategy_lab.domain.errors import InvalidBacktestWindowError
from tests.conftest import scripted_service
from tests.strategy_lab.support import DAYS, END, PARAMS, REASONING, SYMBOLS, populate, prices

WINDOW = BacktestWindow(start=date(2023, 1, 2))
MEAN_REVERSION = {
    "strategy_type": "mean_reversion",
    "lookback": 10,
    "entry_z": 1.0,
    "exit_z": 0.0,
    "trend_ma": 0,
    "n_stocks": 5,
    "stop_loss": 0.1,
    "resample": "W",
    "resample_offset": 0,
}
VOLATILITY = {
    "strategy_type": "volatility",
    "vol_period": 20,
    "max_vol": 0.8,
    "target_vol": 0.3,
    "trend_ma": 0,
    "n_stocks": 5,
    "stop_loss": 0.1,
    "resample": "W",
    "resample_offset": 0,
}
SCRIPT = [
    {**PARAMS, "strategy_type": "momentum"},
    MEAN_REVERSION,
    VOLATILITY,
    {**PARAMS, "strategy_type": "momentum", "momentum_period": 10, "n_stocks": 10},
]


def sectioned(params: dict) -> str:
    """A strategist answer in the sectioned layout: REASONING, then JSON."""
    return f"REASONING:\n{REASONING}\n\nJSON:\n{json.dumps({'params': params})}"


def lab(
    settings: Settings, script: list[dict], holdout_shift: date | None = None
) -> tuple[AppContainer, ScriptedProvider]:
    container = AppContainer(settings)
    provider = ScriptedProvider([sectioned(p) for p in script])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    populate(container.database)
    if holdout_shift is not None:
        rewrite_prices_after(container, holdout_shift)
    return container, provider


def rewrite_prices_after(container: AppContainer, day: date) -> None:
    """Replace every bar after `day` with a different random walk from the same last price."""
    dates = pd.bdate_range(end=END, periods=DAYS)
    later = dates > pd.Timestamp(day)
    rng = np.random.default_rng(7)
    bars = []
    for symbol in SYMBOLS:
        close = prices(symbol)
        start = close[~later][-1]
        walk = start * np.exp(np.cumsum(rng.normal(-0.002, 0.03, later.sum())))
        bars.append(
            pd.DataFrame(
                {
                    "symbol": symbol,
                    "trade_date": dates[later],
                    "open": walk,
                    "high": walk * 1.01,
                    "low": walk * 0.99,
                    "close": walk,
                    "volume": 1e6,
                    "amount": walk * 1e6,
                    "adj_factor": 1.0,
                }
            )
        )
    MarketDataImportService(SqlMarketDataRepository(container.database)).import_frames(
        "test", {"bars": pd.concat(bars, ignore_index=True)}
    )


def test_the_plan_cuts_trading_days_sixty_twenty_twenty() -> None:
    days = pd.bdate_range("2020-01-01", periods=500)
    plan = plan_splits(days, SplitConfig())
    # 500 x 0.6 = 300 in-sample, 500 x 0.2 = 100 validation, the remaining 100 holdout
    assert [f.in_sample.days for f in plan.folds] == [300] and plan.validation.days == 100
    assert plan.holdout.days == 100
    assert plan.folds[0].in_sample.end < plan.validation.start <= plan.validation.end < plan.holdout.start
    assert plan.holdout.end == days[-1].date() and plan.selection.end == days[399].date()


def test_walk_forward_rolls_equal_in_sample_windows_each_followed_by_its_validation() -> None:
    days = pd.bdate_range("2020-01-01", periods=500)
    plan = plan_splits(days, SplitConfig(mode="walk_forward", folds=4))
    # validation 100 days in 4 windows of 25; in-sample length 400 - 4 x 25 = 300, rolling by 25
    assert [f.validation.days for f in plan.folds] == [25] * 4
    assert [f.in_sample.days for f in plan.folds] == [300] * 4
    assert [f.in_sample.start for f in plan.folds] == [days[i].date() for i in (0, 25, 50, 75)]
    for fold in plan.folds:
        assert (pd.Timestamp(fold.validation.start) - pd.Timestamp(fold.in_sample.end)).days in (1, 3)
    assert plan.validation.days == 100 and plan.holdout.days == 100


def test_a_window_too_short_to_split_is_a_clear_error() -> None:
    with pytest.raises(InvalidBacktestWindowError, match="too few to split"):
        plan_splits(pd.bdate_range("2024-01-01", periods=60), SplitConfig())


def test_a_split_leaving_no_holdout_is_refused() -> None:
    with pytest.raises(ValueError, match="holdout"):
        SplitConfig(in_sample=0.7, validation=0.25)


def run_lab(
    settings: Settings, holdout_shift: date | None = None, **options: object
) -> tuple[StrategyRunDTO, list[str]]:
    container, provider = lab(settings, SCRIPT, holdout_shift)
    service = container.strategy_lab.service
    run = service.create_run(
        RunConfig(iterations=len(SCRIPT), window=WINDOW, max_drawdown_limit=0.9, **options)
    )
    finished = service.execute(run.id)
    prompts = [r.messages[-1].content for r in provider.requests]
    return finished, prompts


def selection_end() -> date:
    """The last validation day of WINDOW's plan, from the store's calendar (business days to END)."""
    days = pd.bdate_range(end=END, periods=DAYS)
    return plan_splits(days[days >= pd.Timestamp(WINDOW.start)], SplitConfig()).selection.end


def test_changing_holdout_prices_changes_nothing_but_the_holdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No holdout data reaches the prompt or the selection: new holdout prices, same champion."""
    runs = []
    for name, shift in (("same", None), ("changed", selection_end())):
        monkeypatch.setenv("STOCKDESK_HOME", str(tmp_path / name))
        runs.append(run_lab(Settings(), shift))
    (first, prompts_a), (second, prompts_b) = runs
    assert first.status == second.status == RunStatus.COMPLETED
    assert prompts_a == prompts_b  # the strategist saw exactly the same words
    assert first.champion is not None and second.champion is not None
    assert first.champion.number == second.champion.number
    for a, b in zip(first.iterations, second.iterations, strict=True):
        assert a.metrics == b.metrics and a.validation == b.validation and a.returns == b.returns
    assert first.splits is not None and second.splits is not None
    assert first.splits.validation.sharpe == second.splits.validation.sharpe
    assert first.splits.holdout.sharpe != second.splits.holdout.sharpe  # the holdout did change
    assert first.deflated_sharpe == second.deflated_sharpe and first.pbo == second.pbo


def test_a_run_reports_families_splits_trials_and_overfitting_figures(settings: Settings) -> None:
    run, prompts = run_lab(settings)
    assert run.families_tried == ["momentum", "mean_reversion", "volatility"]
    assert run.trials == sum(1 for i in run.iterations if i.validation is not None)
    data = json.loads(run.model_dump_json())
    for split in ("in_sample", "validation", "holdout"):
        for figure in ("sharpe", "annual_return", "max_drawdown"):
            assert isinstance(data["splits"][split][figure], float)
    assert isinstance(data["deflated_sharpe"], float) and 0.0 <= data["deflated_sharpe"] <= 1.0
    assert isinstance(data["pbo"], float) and 0.0 <= data["pbo"] <= 1.0
    assert data["trials"] == run.trials and data["families_tried"] == run.families_tried
    # the prompt shows in-sample figures and never the validation or holdout ones
    champion = run.champion
    assert champion is not None and champion.validation is not None
    later = "\n".join(prompts[1:])
    assert "in-sample" in later.lower()
    assert "validation" not in later.lower() and "holdout" not in later.lower()
    plan = run.summary.plan if run.summary else None
    assert plan is not None and run.splits is not None
    assert run.splits.holdout.periods == [plan.holdout]
    assert run.splits.validation.days == plan.validation.days


def test_the_champion_is_the_best_validation_sharpe_not_the_best_in_sample(settings: Settings) -> None:
    run, _ = run_lab(settings)
    scored = [i for i in run.iterations if i.validation is not None]
    best_validation = max(scored, key=lambda i: (i.validation.sharpe, -i.number))  # type: ignore[union-attr]
    assert run.champion is not None and run.champion.number == best_validation.number


def test_walk_forward_runs_report_each_folds_sharpe(settings: Settings) -> None:
    run, _ = run_lab(settings, split=SplitConfig(mode="walk_forward", folds=3))
    assert run.status == RunStatus.COMPLETED
    scored = [i for i in run.iterations if i.validation is not None]
    assert scored and all(len(i.folds) == 3 for i in scored)
    assert run.splits is not None and len(run.splits.in_sample.periods) == 3


def test_two_sets_of_one_family_in_a_row_turn_the_prompt_to_an_untried_family(settings: Settings) -> None:
    momentum = {**PARAMS, "strategy_type": "momentum"}
    script = [momentum, {**momentum, "n_stocks": 10}, MEAN_REVERSION]
    container, provider = lab(settings, script)
    service = container.strategy_lab.service
    run = service.create_run(RunConfig(iterations=3, window=WINDOW, max_drawdown_limit=0.9))
    service.execute(run.id)
    third = provider.requests[2].messages[-1].content
    assert "Mode: EXPLORE" in third and "mean_reversion" in third.split("Mode: EXPLORE", 1)[1]
