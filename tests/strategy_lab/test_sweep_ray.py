"""`strategy sweep` on local Ray: the same results as on threads, the command end to end (table, CSV,
JSON, a rerun that resumes), and `jobs resume` finishing a sweep whose driver was interrupted."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.entrypoints.batch.sweep_work import SweepWork
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from stockdesk.shared.tasks import InlineEngine, JobStatus, ThreadEngine
from stockdesk.shared.tasks.ray_engine import RayEngine
from stockdesk.strategy_lab.domain.sweep import SweepSpec
from stockdesk.strategy_lab.presentation.cli.sweep import run_sweep
from tests.strategy_lab.support import populate
from tests.strategy_lab.test_sweep_service import GRID, QUIET, figures, lab_of, local_work

pytestmark = pytest.mark.usefixtures("ray_local")  # every test here runs on the local Ray

GRID_YAML = """\
grid:
  momentum_period: [10, 20, 30]
  ma_periods: [20, 60]
  catalyst_type: revenue
  catalyst_lookback: 3
  n_stocks: 5
  stop_loss: 0.1
  resample: W
  resample_offset: 0
"""


def test_ray_gives_the_same_results_as_threads(settings: Settings, tmp_path: Path) -> None:
    threaded_lab, _ = lab_of(settings)
    threaded = run_sweep(
        threaded_lab.sweeps, SweepSpec(grid=GRID), local_work(threaded_lab), ThreadEngine(2), console=QUIET
    )
    other = Settings(home=tmp_path / "ray-home")
    ray_container = AppContainer(other)
    populate(ray_container.database)
    on_ray = run_sweep(
        ray_container.strategy_lab.sweeps,
        SweepSpec(grid=GRID),
        lambda spec, job_id: SweepWork(other, spec, job_id),
        RayEngine(2),
        console=QUIET,
    )
    assert on_ray.status == "done" and on_ray.counts.done == 5
    assert figures(on_ray) == figures(threaded)


@pytest.fixture
def app(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> typer.Typer:
    container = AppContainer(settings)
    populate(container.database)
    monkeypatch.setattr(entry, "_container", container)
    return entry.app


def cli(app: typer.Typer, *args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_the_command_ranks_writes_csv_and_json_and_a_rerun_resumes(app: typer.Typer, tmp_path: Path) -> None:
    grid = tmp_path / "grid.yaml"
    grid.write_text(GRID_YAML)
    out = tmp_path / "results.csv"
    result = cli(app, "strategy", "sweep", "--grid", str(grid), "--workers", "2", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "5 parameter sets, 1 grid combinations skipped" in result.output
    assert "momentum_period (30) should be <= ma_periods (20)" in result.output
    assert "holdout scored once, for the winner only" in result.output
    assert "deflated Sharpe:" in result.output and "PBO:" in result.output and "trials: 5" in result.output
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [r["rank"] for r in rows] == ["1", "2", "3", "4", "5"]
    assert [r["champion"] for r in rows] == ["True", "False", "False", "False", "False"]
    sharpes = [float(r["validation_sharpe"]) for r in rows]
    assert sharpes == sorted(sharpes, reverse=True)
    assert {r["momentum_period"] for r in rows} == {"10", "20", "30"} and rows[0][
        "catalyst_type"
    ] == "revenue"
    again = cli(app, "strategy", "sweep", "--grid", str(grid), "--json")
    assert again.exit_code == 0, again.output
    assert "6 of 6 tasks already done" in again.stderr  # 5 sets and the summary
    body = json.loads(again.stdout)
    assert body["status"] == "done" and [r["key"] for r in body["rows"]] == [r["key"] for r in rows]
    assert body["summary"]["splits"]["holdout"]["periods"][0]["end"] == "2024-06-28"
    listed = cli(app, "jobs", "list", "--kind", "strategy_sweep", "--json")
    assert [j["tasks"]["done"] for j in json.loads(listed.stdout)] == [6]


def test_jobs_resume_finishes_an_interrupted_sweep_on_ray(app: typer.Typer) -> None:
    lab = entry.container().strategy_lab
    opened = lab.sweeps.open(SweepSpec(grid=GRID))
    inner = local_work(lab)(opened.spec, opened.job.id)
    calls = []

    def interrupted_after_one_batch(keys: list[str]):  # type: ignore[no-untyped-def]
        calls.append(keys)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return inner(keys)

    with pytest.raises(KeyboardInterrupt):
        lab.sweeps.run(opened, interrupted_after_one_batch, InlineEngine())
    assert lab.sweeps.results(opened.job.id).status == JobStatus.INTERRUPTED
    result = cli(app, "jobs", "resume", opened.job.id[:12], "--workers", "2")
    assert result.exit_code == 0, result.output
    finished = lab.sweeps.results(opened.job.id)
    assert finished.status == "done" and finished.counts.done == 5 and finished.summary is not None
    assert "holdout scored once" in result.output
