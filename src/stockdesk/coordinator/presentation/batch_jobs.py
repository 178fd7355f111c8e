"""Start a batch analysis as a server job: the one way REST and the web UI both do it.

A body names its job: the same symbols, date, experts and debate are the same job (its folder under
the server's batch root is named by their hash), so posting a body again resumes it and finished
symbols are never analysed twice. Bounds are checked first, then the service refuses unknown
symbols and dates outside the stored bars, all before any work; only a job with symbols left is
handed to the executor. How a task runs (the worker, the engine: Ray in the server) is given by
the composition root (`entrypoints/container.py`, `batch_launcher`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from stockdesk.coordinator.application import ALL_EXPERTS, DebateModeName, ExpertName
from stockdesk.coordinator.application.batch_analysis import (
    JOB_KIND,
    BatchAnalysisConfig,
    BatchAnalysisService,
    clean_symbols,
)
from stockdesk.coordinator.presentation.reports.batch_index import run_and_index
from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.errors import ConflictException
from stockdesk.shared.symbol_text import SymbolText
from stockdesk.shared.tasks import BatchWorker, ITaskEngine, RunBudget, config_hash
from stockdesk.shared.tasks.executor import JobExecutor

MAX_BODY_SYMBOLS = 5000  # the schema's hard bound; the configured one (max_universe_symbols) is lower


class BatchBody(BaseModel):
    symbols: list[SymbolText] = Field(
        min_length=1, max_length=MAX_BODY_SYMBOLS, examples=[["000338.SZ", "601318.SH"]]
    )
    as_of: IsoDay
    experts: list[ExpertName] = Field(default_factory=lambda: list(ALL_EXPERTS), min_length=1)
    skip_debate: bool = False
    debate_mode: DebateModeName = DebateModeName.BULL_BEAR
    rules_only: bool = Field(
        default=False, description="code-only signals and the rules verdict: no LLM call"
    )
    max_tokens: int | None = Field(default=None, ge=1, description="stop starting analyses past this")
    max_cost_usd: float | None = Field(default=None, ge=0.0)


@dataclass(frozen=True)
class BatchLauncher:
    """What starting a batch in the server needs. `max_tokens`: the server's cap per request,
    applied to a batch's whole run (its workers too)."""

    service: Callable[[], BatchAnalysisService]
    jobs: Callable[[], JobExecutor]
    make_work: Callable[[BatchAnalysisConfig], BatchWorker]
    make_engine: Callable[[], ITaskEngine]
    out_root: Callable[[], Path]
    bounds: RequestBounds = field(default_factory=RequestBounds)
    max_tokens: int | None = None

    def launch(self, body: BatchBody) -> str:
        """Check, open (or reopen) the body's job and submit the symbols it still lacks; its id.

        422 UNIVERSE_TOO_LARGE, 404 UNKNOWN_SYMBOL, 400 AS_OF_OUT_OF_RANGE before anything runs;
        409 JOB_RUNNING when another process runs the same batch."""
        symbols = clean_symbols(list(body.symbols))
        self.bounds.check_universe(symbols)
        what = body.model_dump(mode="json", exclude={"max_tokens", "max_cost_usd"}) | {"symbols": symbols}
        folder = self.out_root() / f"{body.as_of.isoformat()}-{config_hash(what)[:12]}"
        config = BatchAnalysisConfig(
            symbols=symbols, as_of=body.as_of, experts=body.experts, skip_debate=body.skip_debate,
            debate_mode=body.debate_mode, rules_only=body.rules_only, out_dir=str(folder.resolve()),
        )  # fmt: skip
        service, jobs = self.service(), self.jobs()
        job, _ = service.open(config)
        if job.live and not jobs.is_active(job.id):
            raise ConflictException(
                f"batch {job.id[:12]} is running in another process ({job.owner})", code="JOB_RUNNING"
            )
        counts = service.counts(job.id)
        if counts.done < counts.total:
            caps = [cap for cap in (body.max_tokens, self.max_tokens) if cap is not None]
            budget = RunBudget(min(caps) if caps else None, body.max_cost_usd)
            make_work, make_engine = self.make_work, self.make_engine
            jobs.submit(
                JOB_KIND,
                job.id,
                lambda: run_and_index(
                    service, config, job.id, make_work(config), make_engine(), budget=budget
                ),
            )
        return job.id
