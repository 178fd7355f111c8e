"""Batch work on the job engine, measured: analyses/s on local Ray for 1, 2, 4 workers, and task overhead.

(a) throughput: `batch analyze`'s real work (`AnalyzeSymbolsWork` through `run_batch`: the
    pipeline of 5 experts, debate and judge, a report file per symbol, the index) over a
    generated SQLite store, with a scripted LLM that sleeps a fixed latency per call. Each worker
    count runs a new job over the same symbols. Printed: wall time, analyses/s, LLM calls, and
    the scaling efficiency  throughput_n / (n x throughput_1)  (1.0 = perfect). The CPU time of
    one analysis is measured in this process (inline engine, `time.process_time`, all threads).
(b) overhead: N no-op tasks through `run_tasks` on InlineEngine, ThreadEngine(4) and RayEngine(4),
    one key per batch and a bigger batch: wall / N is the engine's and the task store's cost per
    task (target < 20 ms).

    .venv/bin/python benchmarks/batch_benchmark.py                  # both parts, ~2-3 min
    .venv/bin/python benchmarks/batch_benchmark.py --workers 1,2,4 --symbols 24 --latency 0.2
    .venv/bin/python benchmarks/batch_benchmark.py --part overhead --tasks 1000

Runs in a temporary home and starts its own local Ray (as many CPU slots as the most workers).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline_benchmark import ANSWERS, AS_OF, CRITICAL_PATH_CALLS
from rich.console import Console

from stockdesk.coordinator.application.batch_analysis import BatchAnalysisConfig
from stockdesk.coordinator.presentation.cli.batch import run_batch
from stockdesk.entrypoints.batch.analyze_work import AnalyzeSymbolsWork
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.tasks import InlineEngine, ITaskEngine, TaskCounts, ThreadEngine, config_hash, run_tasks
from stockdesk.shared.tasks.ray_engine import RayEngine, start_ray

OVERHEAD_TARGET_MS = 20.0
REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass
class ScriptedLLM:
    """Each worker's LLM service: schema-keyed answers after a fixed sleep, calls audited.

    A picklable factory, because Ray workers build their own service and do not see this
    process's environment: the latency and the answers travel inside it. No response cache, so
    every analysis pays its calls.
    """

    latency: float
    answers: dict[str, Any] = field(repr=False)

    def __call__(self, settings: Settings, database: Database) -> LLMService:
        answers = self.answers
        provider = ScriptedProvider(
            [lambda r: json.dumps(answers[r.schema_name], ensure_ascii=False)], latency_seconds=self.latency
        )
        return LLMService(
            [ProviderRoute(alias="scripted", provider=provider)],
            audit=SqlLLMStore(database),
            options=LLMServiceOptions(backoff_seconds=0.0),
        )


def noop(keys: list[str]) -> Mapping[str, Mapping[str, Any]]:
    """A batch worker that does nothing: what is left is the engine's and the store's cost."""
    return {key: {} for key in keys}


@dataclass
class BatchRun:
    workers: int
    analyses: int
    wall: float
    calls: int
    tokens: int
    seconds_each: float  # mean wall of one analysis inside its worker

    @property
    def per_second(self) -> float:
        return self.analyses / self.wall


def symbols(count: int) -> list[str]:
    return [f"{600001 + i}.SH" for i in range(count)]


def batch_once(
    container: AppContainer, names: list[str], out: Path, llm: ScriptedLLM, engine: ITaskEngine, workers: int
) -> BatchRun:
    """One new batch job over `names` (its own output folder, so its own job), timed end to end."""
    config = BatchAnalysisConfig(symbols=names, as_of=AS_OF, out_dir=str(out.resolve()))
    out.mkdir(parents=True, exist_ok=True)
    work = AnalyzeSymbolsWork(container.settings, config, llm=llm, distributed=engine.name == "ray")
    service = container.batch_analysis
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # run_batch echoes where the index went
        counts = run_batch(service, config, work, engine, max_attempts=1, console=Console(quiet=True))
    wall = time.perf_counter() - started
    if counts.done != len(names):
        job, _ = service.open(config)
        errors = {r.symbol: r.error for r in service.rows(job.id) if r.error}
        raise SystemExit(f"batch did not finish: {counts} {list(errors.items())[:3]}")
    job, _ = service.open(config)
    results = [t.result or {} for t in SqlTaskStore(container.database).tasks(job.id)]
    usages = [r.get("usage") or {} for r in results]
    seconds = [float(r.get("seconds") or 0.0) for r in results]
    return BatchRun(
        workers=workers,
        analyses=counts.done,
        wall=wall,
        calls=sum(int(u.get("calls") or 0) for u in usages),
        tokens=sum(int(u.get("tokens") or 0) for u in usages),
        seconds_each=statistics.fmean(seconds),
    )


def cpu_per_analysis(container: AppContainer, names: list[str], out: Path, llm: ScriptedLLM) -> float:
    """CPU seconds (all threads of this process) per analysis, run inline after one warm-up analysis."""
    batch_once(container, names[:1], out / "warmup", llm, InlineEngine(), 1)
    clock = time.process_time()
    batch_once(container, names, out / "cpu", llm, InlineEngine(), 1)
    return (time.process_time() - clock) / len(names)


def throughput(home: Path, worker_counts: list[int], count: int, latency: float) -> None:
    sys.path.insert(0, str(REPO_ROOT))  # the tests' store builder fills the store
    from tests.research.support import populate_store

    settings = Settings(home=home)  # type: ignore[call-arg]
    container = AppContainer(settings)
    container.database.upgrade()
    names = symbols(count)
    clock = time.perf_counter()
    for name in names:
        populate_store(container.database, name)
    print(f"store: {count} symbols x 300 days + 8 quarters imported in {time.perf_counter() - clock:.1f} s")
    llm = ScriptedLLM(latency, json.loads(ANSWERS.read_text(encoding="utf-8")))
    try:
        cpu = cpu_per_analysis(container, names[: min(4, count)], home / "inline", llm)
        # every Ray worker process imports stockdesk and builds its container once: not timed
        most = max(worker_counts)
        batch_once(container, names[: 2 * most], home / "ray-warmup", llm, RayEngine(most), most)
        runs = [batch_once(container, names, home / f"ray-{n}", llm, RayEngine(n), n) for n in worker_counts]
    finally:
        container.close()
    base = next((r for r in runs if r.workers == 1), None)
    print(
        f"\n(a) batch analyze: {count} symbols, scripted LLM at {latency * 1000:.0f} ms per call, local Ray"
    )
    print(
        f"    machine: os.cpu_count() = {os.cpu_count()}: "
        "the CPU-bound part of each analysis caps the scaling"
    )
    print(f"    CPU time per analysis (inline, this process, all threads)  {cpu * 1000:.0f} ms")
    print(f"    critical-path LLM time per analysis  {CRITICAL_PATH_CALLS} x {latency:.3f} s = "
          f"{CRITICAL_PATH_CALLS * latency:.3f} s")  # fmt: skip
    print(f"    {'workers':>7} {'wall s':>8} {'analyses/s':>11} {'s/analysis':>11} {'LLM calls':>10} "
          f"{'calls/analysis':>15} {'tokens':>8} {'efficiency':>11}")  # fmt: skip
    for run in runs:
        efficiency = run.per_second / (run.workers * base.per_second) if base else float("nan")
        print(
            f"    {run.workers:7d} {run.wall:8.2f} {run.per_second:11.3f} {run.seconds_each:11.3f} "
            f"{run.calls:10d} {run.calls / run.analyses:15.1f} {run.tokens:8d} {efficiency:11.2f}"
        )
    print("    efficiency = analyses/s with n workers / (n x analyses/s with 1 worker); "
          "s/analysis = mean wall of one analysis inside its worker")  # fmt: skip
    if base:
        # one worker runs one analysis at a time: what the wall adds to the analyses is the engine's
        # (Ray round trip, claiming and storing the task, the progress counts, the index page)
        engine_ms = (base.wall / base.analyses - base.seconds_each) * 1000
        print(
            f"    engine + task store per analysis (1 worker: wall/analyses - s/analysis)  {engine_ms:.0f} ms"
        )


def overhead_once(
    store: SqlTaskStore, engine: ITaskEngine, tasks: int, batch_size: int
) -> tuple[float, TaskCounts]:
    label = {"engine": engine.name, "workers": engine.workers, "batch": batch_size, "at": time.time_ns()}
    job, _ = store.open_job("bench_noop", config_hash(label), label)
    store.add_tasks(job.id, [f"t{i:06d}" for i in range(tasks)])
    started = time.perf_counter()
    counts = run_tasks(store, job.id, noop, batch_size=batch_size, max_attempts=1, engine=engine)
    return time.perf_counter() - started, counts


def overhead(home: Path, tasks: int, workers: int) -> None:
    settings = Settings(home=home)  # type: ignore[call-arg]
    container = AppContainer(settings)
    container.database.upgrade()
    store = SqlTaskStore(container.database)
    engines: list[tuple[str, Any]] = [
        ("inline", InlineEngine),
        (f"threads({workers})", lambda: ThreadEngine(workers)),
        (f"ray({workers})", lambda: RayEngine(workers)),
    ]
    overhead_once(store, RayEngine(workers), 4 * workers, 1)  # Ray workers up and noop shipped: not timed
    print(f"\n(b) task overhead: {tasks:,} no-op tasks through run_tasks (SQLite task store), "
          f"target < {OVERHEAD_TARGET_MS:.0f} ms per task")  # fmt: skip
    print(f"    {'engine':>10} {'batch':>6} {'wall s':>8} {'ms/task':>8} {'tasks/s':>9}")
    try:
        for label, make in engines:
            for batch_size in (1, 50):
                engine = make()
                try:
                    wall, counts = overhead_once(store, engine, tasks, batch_size)
                finally:
                    engine.close()
                if counts.done != tasks:
                    raise SystemExit(f"{label}: {counts}")
                per_task = wall / tasks * 1000
                verdict = "OK" if per_task < OVERHEAD_TARGET_MS else "MISSED"
                print(
                    f"    {label:>10} {batch_size:6d} {wall:8.2f} {per_task:8.2f} "
                    f"{tasks / wall:9.0f}  {verdict}"
                )
    finally:
        container.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2,4", help="worker counts for the throughput part")
    parser.add_argument("--symbols", type=int, default=24, help="symbols per batch")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per scripted LLM call")
    parser.add_argument("--tasks", type=int, default=1000, help="no-op tasks for the overhead part")
    parser.add_argument("--part", choices=["all", "throughput", "overhead"], default="all")
    args = parser.parse_args()
    worker_counts = sorted({int(w) for w in args.workers.split(",") if w.strip()})
    if not worker_counts or min(worker_counts) < 1:
        raise SystemExit("--workers: a comma list of positive counts, e.g. 1,2,4")
    start_ray(None, num_cpus=max(*worker_counts, 4))
    with tempfile.TemporaryDirectory(prefix="stockdesk-batch-bench-") as tmp:
        if args.part in ("all", "throughput"):
            throughput(Path(tmp) / "throughput", worker_counts, args.symbols, args.latency)
        if args.part in ("all", "overhead"):
            overhead(Path(tmp) / "overhead", args.tasks, 4)


if __name__ == "__main__":
    main()
