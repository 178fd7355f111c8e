"""`evaluate --workers N` on local Ray: the same verdicts, scores and LLM usage as one in-process run.

Each comparison runs the same config twice, in two stores (one job per config and store: the same
store would only resume the finished job): once in this process, once on Ray workers that build
their own container from the pickled settings and write to the same SQLite file the driver reads.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.entrypoints.batch.evaluate_work import EvaluatePointsWork
from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.application.batch_usage import usage_in, with_usage
from stockdesk.evaluation.application.schedule import task_key
from stockdesk.evaluation.domain.dtos import EvaluationConfig, EvaluationReport
from stockdesk.evaluation.domain.ports import Usage
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.tasks import BatchWorker, JobStatus, TaskStatus
from stockdesk.shared.tasks.ray_engine import RayEngine
from tests.evaluation.market import populate, symbols

on_local_ray = pytest.mark.usefixtures("ray_local")
NAMES = symbols(6)
# 6 symbols x ~24 dates (every 20 trading days of 2022-03..2023-12) = 100+ points: two rules batches
RULES = dict(symbols=NAMES, start=date(2022, 3, 1), end=date(2023, 12, 29), every=20, horizons=[5, 20])
EXPERTS = dict(
    symbols=NAMES[:2],
    start=date(2023, 3, 1),
    end=date(2023, 5, 31),
    every=30,
    horizons=[5],
    mode="experts",
    experts=["valuation_modeler", "technical_analyst", "financial_auditor"],
)


def scripted_llm(settings: Settings, database: Database):  # type: ignore[no-untyped-def]
    """Every process's LLM (the driver's and each Ray worker's): scripted answers by schema."""
    from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
    from tests.conftest import scripted_service
    from tests.coordinator.support import Router

    return scripted_service(ScriptedProvider([Router()]), database=database)


@dataclass
class CrashOnce(EvaluatePointsWork):
    """Kills its Ray worker process the first time it is handed `victim` (a marker file remembers it
    across processes), as an out-of-memory kill would; later attempts compute normally."""

    victim: str = ""
    marker: str = ""

    def __call__(self, keys: list[str]) -> dict[str, Any]:
        if self.victim in keys and not os.path.exists(self.marker):
            Path(self.marker).write_text("crashed once", encoding="utf-8")
            os._exit(1)
        return super().__call__(keys)


def store(home: Path, llm: bool = False) -> AppContainer:
    """A container over its own SQLite file holding the generated market."""
    home.mkdir(parents=True, exist_ok=True)
    container = AppContainer(Settings(home=home))
    populate(container.database, NAMES)
    if llm:
        container.__dict__["llm_service"] = scripted_llm(container.settings, container.database)
    return container


@pytest.fixture
def two_stores(tmp_path: Path) -> Iterator[tuple[AppContainer, AppContainer]]:
    inline, ray = store(tmp_path / "inline"), store(tmp_path / "ray")
    yield inline, ray
    inline.close()
    ray.close()


def scored(report: EvaluationReport) -> dict[str, Any]:
    """What must not depend on where verdicts were computed (JSON: NaN compares as null)."""
    data = json.loads(report.model_dump_json())
    for point in data["points"]:
        point.pop("session_id")  # a new session per run, wherever it runs
    return {k: data[k] for k in ("points", "failed", "metrics", "portfolio", "summary")}


def on_ray(
    container: AppContainer, config: EvaluationConfig, workers: int, make: Any = None
) -> EvaluationReport:
    def worker(c: EvaluationConfig) -> BatchWorker:
        return make(c) if make else EvaluatePointsWork(container.settings, c, distributed=False)

    return container.evaluation.service.run(config, engine=RayEngine(workers), worker=worker)


@on_local_ray
def test_rules_mode_scores_the_same_on_two_ray_workers_as_in_process(
    two_stores: tuple[AppContainer, AppContainer],
) -> None:
    inline, ray = two_stores
    config = EvaluationConfig.model_validate(RULES)
    here = inline.evaluation.service.run(config)
    there = on_ray(ray, config, workers=2)
    assert len(here.points) > 100 and not here.failed  # more than one batch of 100 points
    assert scored(there) == scored(here)
    assert there.metrics["rules"]["5"]["count"] == len(here.points)
    tasks = ray.evaluation.tasks.tasks(there.job_id)
    assert {t.status for t in tasks} == {TaskStatus.DONE} and {t.attempts for t in tasks} == {1}
    assert (there.llm_calls, there.tokens, there.cache_hits) == (0, 0, 0)  # rules mode: no LLM


@on_local_ray
def test_experts_mode_gives_the_same_verdicts_and_usage_on_ray_workers(tmp_path: Path) -> None:
    inline, ray = store(tmp_path / "inline", llm=True), store(tmp_path / "ray", llm=True)
    config = EvaluationConfig.model_validate(EXPERTS)
    here = inline.evaluation.service.run(config)
    there = on_ray(
        ray,
        config,
        workers=2,
        make=lambda c: EvaluatePointsWork(ray.settings, c, llm=scripted_llm, distributed=False),
    )
    assert len(here.points) == 6 and not here.failed  # 2 symbols x 3 dates, one batch each
    assert scored(there) == scored(here)
    # the calls were made in the workers: the report's figures came back in the task results
    assert here.llm_calls > 0 and here.tokens > 0
    assert (there.llm_calls, there.tokens, there.cache_hits) == (here.llm_calls, here.tokens, here.cache_hits)
    again = on_ray(ray, config, workers=2)  # finished job: nothing left to compute, nothing spent
    assert (again.llm_calls, again.tokens, again.resumed) == (0, 0, 6)
    inline.close()
    ray.close()


@on_local_ray
def test_a_batch_whose_worker_is_killed_is_retried_and_scores_the_same(
    two_stores: tuple[AppContainer, AppContainer], tmp_path: Path
) -> None:
    inline, ray = two_stores
    config = EvaluationConfig.model_validate(RULES)
    victim = task_key(NAMES[0], inline.evaluation.service.plan(config)[NAMES[0]][0])
    marker = tmp_path / "crashed"
    there = on_ray(
        ray,
        config,
        workers=2,
        make=lambda c: CrashOnce(ray.settings, c, distributed=False, victim=victim, marker=str(marker)),
    )
    assert marker.exists()  # the worker really died once
    tasks = {t.key: t for t in ray.evaluation.tasks.tasks(there.job_id)}
    assert tasks[victim].status is TaskStatus.DONE and tasks[victim].attempts == 2
    assert ray.evaluation.tasks.get_job(there.job_id).status is JobStatus.DONE  # type: ignore[union-attr]
    assert scored(there) == scored(inline.evaluation.service.run(config))


def test_batch_usage_rides_on_one_result_per_batch_and_sums_over_batches() -> None:
    first = with_usage({"a": {"action": "BUY"}, "b": {"action": "SELL"}}, Usage(3, 1, 120, 0.01))
    second = with_usage({"c": ValueError("no data"), "d": {"action": "HOLD"}}, Usage(2, 0, 80, 0.02))
    assert "usage" in first["a"] and "usage" not in first["b"]
    assert "usage" in second["d"]  # the first verdict, not the failed point
    assert with_usage({"e": {"action": "HOLD"}}, Usage()) == {"e": {"action": "HOLD"}}  # nothing spent
    total = usage_in([*first.values(), second["d"], None])
    # calls 3 + 2 = 5, cache hits 1 + 0 = 1, tokens 120 + 80 = 200, cost 0.01 + 0.02 = 0.03
    assert (total.calls, total.cache_hits, total.tokens) == (5, 1, 200)
    assert total.cost_usd == pytest.approx(0.03)


@pytest.fixture
def cli(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[typer.Typer, AppContainer]]:
    container = AppContainer(settings)
    populate(container.database, NAMES)
    monkeypatch.setattr(entry, "_container", container)
    yield entry.app, container


@on_local_ray
def test_the_cli_with_two_workers_runs_on_ray_and_writes_the_in_process_report(
    cli: tuple[typer.Typer, AppContainer], tmp_path: Path
) -> None:
    app, _ = cli
    args = ["--symbols", ",".join(NAMES), "--from", "2022-03-01", "--to", "2023-12-29", "--every", "20"]
    result = CliRunner().invoke(
        app, ["evaluate", *args, "--horizons", "5,20", "--workers", "2", "--out", str(tmp_path / "e.json")]
    )
    assert result.exit_code == 0, result.output
    assert "running on ray with 2 workers" in result.output
    written = EvaluationReport.model_validate_json((tmp_path / "e.json").read_text(encoding="utf-8"))
    reference = store(tmp_path / "reference")
    assert scored(written) == scored(reference.evaluation.service.run(EvaluationConfig.model_validate(RULES)))
    reference.close()


@on_local_ray
def test_jobs_resume_runs_an_unfinished_evaluation_on_ray_workers(
    cli: tuple[typer.Typer, AppContainer],
) -> None:
    app, container = cli
    job = container.evaluation.service.start(EvaluationConfig.model_validate(RULES))  # planned, not run
    assert job.pending == job.total > 100
    result = CliRunner().invoke(app, ["jobs", "resume", job.job_id, "--workers", "2"])
    assert result.exit_code == 0, result.output
    assert "rules mode" in result.output  # the report's summary
    finished = container.evaluation.service.status(job.job_id)
    assert (finished.status, finished.done, finished.pending) == ("done", job.total, 0)


@on_local_ray
def test_a_token_budget_stops_the_evaluation_and_a_higher_one_finishes_it(tmp_path: Path) -> None:
    from stockdesk.shared.tasks import RunBudget

    container = store(tmp_path / "budget", llm=True)
    service = container.evaluation.service
    config = EvaluationConfig.model_validate(EXPERTS)

    def worker(c: EvaluationConfig) -> BatchWorker:
        return EvaluatePointsWork(container.settings, c, llm=scripted_llm, distributed=False)

    job = service.start(config)
    # one worker, one token: the first batch's usage reaches the budget, no second batch starts
    stopped = service.execute(job.job_id, engine=RayEngine(1), worker=worker, budget=RunBudget(max_tokens=1))
    assert stopped.status == JobStatus.STOPPED.value and "token budget reached" in (stopped.error or "")
    assert 0 < stopped.done < stopped.total
    finished = service.execute(job.job_id, engine=RayEngine(1), worker=worker, budget=RunBudget(10**9))
    assert finished.status == JobStatus.DONE.value and finished.done == finished.total
    container.close()
