"""`stockdesk strategy backtest | run | show | list` on a real store, the scripted provider for `run`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.domain.exceptions import LLMTransientError
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.conftest import scripted_service
from tests.entrypoints.test_cli import stockdesk
from tests.strategy_lab.support import PARAMS, answer, populate

FROM = ("--from", "2023-07-01")


@pytest.fixture
def app(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> typer.Typer:
    container = AppContainer(settings)
    provider = ScriptedProvider([answer(), answer(n_stocks=10), answer(resample="M", resample_offset=2)])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    populate(container.database)
    monkeypatch.setattr(entry, "_container", container)
    return entry.app


def strategy(app: typer.Typer, *args: str):
    return CliRunner().invoke(app, ["strategy", *args], env={"COLUMNS": "200"})


def test_backtest_json_gives_metrics_and_the_benchmark(app: typer.Typer) -> None:
    result = strategy(app, "backtest", "--params", json.dumps(PARAMS), *FROM, "--json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert set(body["metrics"]) >= {
        "total_return", "annual_return", "sharpe", "sortino", "max_drawdown", "calmar", "turnover",
        "win_rate", "trades",
    }  # fmt: skip
    assert body["metrics"]["trades"] > 0 and body["benchmark"]["days"] == body["metrics"]["days"]
    assert len(body["universe"]) == 6 and body["start"] == "2023-07-03" and body["costs"]["CN"]["sell"] > 0
    assert body["equity_curve"][0]["strategy"] == 1.0


def test_backtest_table_names_the_strategy_and_compares_with_the_universe(app: typer.Typer) -> None:
    result = strategy(
        app, "backtest", "--params", json.dumps(PARAMS), "--universe", "600001.SH,600002.SH", *FROM
    )
    assert result.exit_code == 0, result.output
    assert "momentum 20d · MA60 · revenue catalyst (2 months) · top 5" in result.output
    assert (
        "2 symbols" in result.output
        and "Sharpe" in result.output
        and "equal-weight universe" in result.output
    )


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({**PARAMS, "momentum_period": 25}, "momentum_period: Use 20 (closest valid value)"),
        ({**PARAMS, "momentum_period": 30, "ma_periods": 20}, "invalid strategy parameters: params: Use"),
        ("{not json", "--params is not JSON"),
    ],
)
def test_bad_params_are_a_one_line_error_with_exit_2(params: object, message: str) -> None:
    raw = params if isinstance(params, str) else json.dumps(params)
    result = stockdesk("strategy", "backtest", "--params", raw)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_unknown_symbols_and_runs_are_exit_2(database: Database) -> None:
    populate(database)
    unknown = stockdesk("strategy", "backtest", "--params", json.dumps(PARAMS), "--universe", "999999.SH")
    assert unknown.returncode == 2 and "not in the store: 999999.SH" in unknown.stderr
    empty = stockdesk("strategy", "backtest", "--params", json.dumps(PARAMS), "--from", "2030-01-01")
    assert empty.returncode == 2 and "the window is empty" in empty.stderr
    missing = stockdesk("strategy", "show", "nope")
    assert missing.returncode == 2 and "no strategy run with id nope" in missing.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--in-sample", "0.8", "--validation", "0.2"),
            "invalid split: in_sample (0.8) + validation (0.2) must",
        ),
        (("--split", "sideways"), "--split must be fixed or walk-forward, not 'sideways'"),
        (("--from", "2024-03-01"), "too few to split fixed into in-sample 60%"),
    ],
)
def test_a_split_that_cannot_be_made_is_a_one_line_error_before_anything_runs(
    database: Database, args: tuple[str, ...], message: str
) -> None:
    populate(database)
    result = stockdesk("strategy", "run", "--iterations", "1", *args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert stockdesk("strategy", "list").stdout.strip() == ""  # no run was stored


def test_run_then_show_with_an_equity_curve_png(app: typer.Typer, tmp_path: Path) -> None:
    result = strategy(app, "run", "--iterations", "2", *FROM, "--json")
    assert result.exit_code == 0, result.output
    run = json.loads(result.stdout)
    assert run["status"] == "completed" and [i["number"] for i in run["iterations"]] == [1, 2]
    assert "iteration 1:" in result.stderr and "iteration 2:" in result.stderr
    assert run["champion"] is not None

    png = tmp_path / "curve.png"
    shown = strategy(app, "show", run["id"], "--png", str(png))
    assert shown.exit_code == 0, shown.output
    assert f"champion: iteration {run['champion']['number']}" in shown.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    listed = strategy(app, "list")
    assert run["id"] in listed.output and "2/2 iterations" in listed.output
    again = stockdesk("strategy", "run", "--resume", run["id"])
    assert again.returncode == 2 and "already completed" in again.stderr


def test_a_run_whose_model_is_unreachable_exits_1_and_says_how_to_resume(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    container = AppContainer(settings)
    provider = ScriptedProvider([LLMTransientError("connection refused")])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    populate(container.database)
    monkeypatch.setattr(entry, "_container", container)
    result = strategy(entry.app, "run", "--iterations", "2", *FROM)
    assert result.exit_code == 1
    assert "connection refused" in result.stdout and "strategy run --resume" in result.stderr
