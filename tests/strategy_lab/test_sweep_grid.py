"""A sweep's grid file: expansion per family, invalid combinations skipped with the union's reason,
stable task keys, one-line errors, and the out-of-sample ranking of finished sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from stockdesk.strategy_lab.application.sweep_results import rank_rows
from stockdesk.strategy_lab.domain.sweep import MAX_SETS, SweepGridError, SweepRow, SweepSpec
from stockdesk.strategy_lab.domain.sweep_grid import expand_grid, params_key, plan_sweep
from stockdesk.strategy_lab.presentation.cli.sweep_file import read_grid, spec_from
from tests.entrypoints.test_cli import stockdesk

MOMENTUM = {
    "momentum_period": [10, 20],
    "ma_periods": [20, 60],
    "catalyst_type": "revenue",
    "catalyst_lookback": 3,
    "n_stocks": [5, 10],
    "stop_loss": 0.1,
    "resample": "W",
    "resample_offset": 0,
}
VOLATILITY = {"vol_period": [20, 60], "max_vol": 0.25, "target_vol": [0.15, 0.3], "trend_ma": 0}


def _grid(**extra: object) -> dict:
    return SweepSpec(grid={**MOMENTUM, **extra}).grid  # type: ignore[return-value]


def test_a_mixed_grid_is_each_familys_own_product_with_invalid_sets_skipped_and_explained() -> None:
    plan = expand_grid(_grid(strategy_type=["momentum", "volatility"], **VOLATILITY))
    # momentum: 2 periods x 2 MAs x 2 sizes = 8, all with momentum_period <= ma_periods (10<=20, 20<=20 ...);
    # volatility: 2 vol periods x 2 sizes x 2 targets = 8, of which target 0.3 >= max_vol 0.25 in 4.
    families = [s.params.strategy_type for s in plan.sets]  # type: ignore[union-attr]
    assert families == ["momentum"] * 8 + ["volatility"] * 4
    assert [s.number for s in plan.sets] == list(range(1, 13))
    assert len(plan.skipped) == 4
    assert all(s.values["target_vol"] == 0.3 for s in plan.skipped)
    assert all("target_vol (0.3) must be below max_vol (0.25)" in s.reason for s in plan.skipped)
    first = plan.sets[0].params
    assert first is not None and (first.momentum_period, first.ma_periods, first.n_stocks) == (10, 20, 5)


def test_a_value_outside_the_allowed_set_is_skipped_with_the_allowed_values() -> None:
    plan = expand_grid(_grid(momentum_period=[20, 25]))
    # 25 is not allowed: its 1 x 2 MAs x 2 sizes = 4 combinations are skipped, 20's 4 stay
    assert len(plan.sets) == 4 and len(plan.skipped) == 4
    assert plan.skipped[0].reason == "momentum_period: Input should be 5, 10, 20 or 30"


def test_a_family_missing_a_parameter_is_skipped_once() -> None:
    plan = expand_grid(_grid(strategy_type=["momentum", "mean_reversion"], lookback=[5, 10]))
    assert len(plan.sets) == 8  # momentum only
    assert len(plan.skipped) == 1
    assert plan.skipped[0].values == {"strategy_type": "mean_reversion"}
    assert "entry_z" in plan.skipped[0].reason and "lookback" not in plan.skipped[0].reason


def test_keys_depend_on_the_parameters_not_on_how_the_grid_spells_them() -> None:
    reordered = dict(reversed(list(MOMENTUM.items())))
    spelled = {**reordered, "n_stocks": [10.0, 5.0], "stop_loss": [0.10]}
    keys = {s.key for s in expand_grid(SweepSpec(grid=MOMENTUM).grid).sets}  # type: ignore[arg-type]
    assert keys == {s.key for s in expand_grid(SweepSpec(grid=spelled).grid).sets}  # type: ignore[arg-type]
    assert len(keys) == 8 and all(len(k) == 16 for k in keys)
    repeated = expand_grid(_grid(n_stocks=[5, 5, 10]))  # a repeated value is one task
    assert len(repeated.sets) == 8
    one = repeated.sets[0]
    assert one.params is not None and params_key(one.params) == one.key


@pytest.mark.parametrize(
    ("grid", "message"),
    [
        ({**MOMENTUM, "vol_period": [20]}, "grid: vol_period is not a parameter of momentum"),
        ({**MOMENTUM, "strategy_type": ["momentum", "carry"]}, "grid: unknown strategy_type 'carry'"),
        ({**MOMENTUM, "momentum_period": [30], "ma_periods": [20]}, "none of its 2 combinations is a valid"),
        (
            {**MOMENTUM, "momentum_period": [5, 10, 20, 30] * 2, "ma_periods": list(range(1000))},
            f"more than the {MAX_SETS:,} a sweep may hold",
        ),
    ],
)
def test_a_grid_without_any_valid_set_is_one_error(grid: dict, message: str) -> None:
    # 30 > 20: both n_stocks of the single momentum_period/ma_periods pair break the rule;
    # 8 periods x 1,000 MAs x 2 sizes = 16,000 combinations > 5,000
    with pytest.raises(SweepGridError) as caught:
        expand_grid(SweepSpec(grid=grid).grid)  # type: ignore[arg-type]
    assert message in caught.value.message and "\n" not in caught.value.message


def test_llm_runs_are_one_task_per_seed() -> None:
    plan = plan_sweep(SweepSpec(llm_runs=3))
    assert [(s.key, s.number, s.params) for s in plan.sets] == [
        ("llm-0001", 1, None),
        ("llm-0002", 2, None),
        ("llm-0003", 3, None),
    ]


def test_the_grid_file_takes_what_strategy_run_takes(tmp_path: Path) -> None:
    path = tmp_path / "grid.yaml"
    path.write_text(
        "grid:\n  momentum_period: [10, 20]\n  ma_periods: 60\n  catalyst_type: revenue\n"
        "  catalyst_lookback: 3\n  n_stocks: 5\n  stop_loss: 0.1\n  resample: W\n  resample_offset: 0\n"
        "split: {mode: walk-forward, in_sample: 0.5, validation: 0.3, folds: 4}\n"
        "execution: {capital: 200000, slippage: 0.001, lots: false}\n"
        "universe: 600001.SH, 600002.SH\nfrom: 2023-01-02\nto: 2024-06-28\nmax_drawdown: 0.3\n"
    )
    spec = read_grid(path)
    assert (
        spec.grid is not None and spec.grid["ma_periods"] == [60] and spec.grid["momentum_period"] == [10, 20]
    )
    assert (spec.split.mode, spec.split.in_sample, spec.split.validation, spec.split.folds) == (
        "walk_forward", 0.5, 0.3, 4,
    )  # fmt: skip
    assert spec.execution.capital is None and spec.execution.slippage == 0.001  # lots: false = fractional
    assert spec.window.universe == ["600001.SH", "600002.SH"]
    assert (str(spec.window.start), str(spec.window.end), spec.max_drawdown_limit) == (
        "2023-01-02", "2024-06-28", 0.3,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"grid": MOMENTUM, "llm_runs": 3}, "give exactly one of grid"),
        ({}, "give exactly one of grid"),
        ({"grid": MOMENTUM, "iterations": 3}, "unknown key(s) iterations"),
        ({"grid": MOMENTUM, "split": {"in_sample": 0.8, "validation": 0.2}}, "must leave at least 10%"),
        ({"grid": MOMENTUM, "split": {"mode": "rolling"}}, "split.mode must be fixed or walk-forward"),
        ({"grid": MOMENTUM, "execution": {"lots": "yes"}}, "execution.lots must be true or false"),
        ("momentum_period: 10", "must be a mapping"),
    ],
)
def test_a_bad_grid_file_is_one_line(data: object, message: str) -> None:
    with pytest.raises(SweepGridError) as caught:
        spec_from(data)
    assert message in caught.value.message and "\n" not in caught.value.message


def test_yaml_that_does_not_parse_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "grid.yaml"
    path.write_text("grid: [unclosed\n")
    with pytest.raises(SweepGridError) as caught:
        read_grid(path)
    assert "is not YAML" in caught.value.message and "\n" not in caught.value.message


def _row(number: int, sharpe: float | None, within: bool | None, status: str = "ran") -> SweepRow:
    return SweepRow(
        rank=None,
        key=f"k{number}",
        number=number,
        status=status,
        validation_sharpe=sharpe,
        within_limit=within,
    )


def test_sets_rank_by_validation_sharpe_within_the_drawdown_limit_first() -> None:
    rows = [
        _row(1, 0.5, True),
        _row(2, 2.0, False),  # the best Sharpe, but its drawdown is beyond the limit
        _row(3, 0.9, True),
        _row(4, None, None, status="invalid_metrics"),  # no trades: not ranked
        _row(5, 0.9, True),  # ties with #3: the earlier set goes first
        _row(6, None, None, status="failed"),
        _row(7, 1.2, True, status="beat_benchmark"),
    ]
    ranked = rank_rows(rows)
    assert [(r.number, r.rank) for r in ranked] == [
        (7, 1), (3, 2), (5, 3), (1, 4), (2, 5), (4, None), (6, None),
    ]  # fmt: skip


def test_the_command_with_no_valid_set_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "grid.yaml"
    path.write_text(
        "grid:\n  momentum_period: 30\n  ma_periods: 20\n"
        + "".join(
            f"  {k}: {v}\n"
            for k, v in MOMENTUM.items()
            if k not in ("momentum_period", "ma_periods", "n_stocks")
        )
        + "  n_stocks: 5\n"
    )
    result = stockdesk("strategy", "sweep", "--grid", str(path))
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "none of its 1 combinations is a valid parameter set" in lines[0]
    assert "momentum_period (30) should be <= ma_periods (20)" in lines[0]
