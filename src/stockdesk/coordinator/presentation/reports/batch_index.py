"""The index page of a batch: every symbol ranked by action and confidence, linking its report."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

from stockdesk.coordinator.application.batch_analysis import (
    BatchAnalysisConfig,
    BatchAnalysisService,
    BatchRow,
)
from stockdesk.coordinator.presentation.reports.render import report_environment
from stockdesk.shared.exports import write_document
from stockdesk.shared.files import write_atomic
from stockdesk.shared.tasks import BatchWorker, ITaskEngine, ProgressCallback, RunBudget, TaskCounts

logger = logging.getLogger(__name__)
INDEX_NAME = "index.html"
INDEX_PDF = "index.pdf"


def render_index(config: BatchAnalysisConfig, job_id: str, rows: list[BatchRow], counts: TaskCounts) -> str:
    template = report_environment("html").get_template("batch_index.html.j2")
    return template.render(
        as_of=config.as_of.isoformat(),
        experts=", ".join(e.value for e in config.experts),
        debate="no debate" if config.skip_debate else f"{config.debate_mode.value} debate",
        job_id=job_id,
        rows=rows,
        counts=counts,
        written=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )


def write_index(config: BatchAnalysisConfig, job_id: str, rows: list[BatchRow], counts: TaskCounts) -> Path:
    path = Path(config.out_dir) / INDEX_NAME
    return write_atomic(path, render_index(config, job_id, rows, counts).encode("utf-8"))


def print_index(config: BatchAnalysisConfig) -> Path:
    """The batch's index.html printed to index.pdf beside it (`batch analyze --pdf`); its links still
    name each symbol's HTML report in the same folder."""
    folder = Path(config.out_dir)
    html = (folder / INDEX_NAME).read_text(encoding="utf-8")
    return write_document(html, folder / INDEX_PDF)


def run_and_index(
    service: BatchAnalysisService,
    config: BatchAnalysisConfig,
    job_id: str,
    work: BatchWorker,
    engine: ITaskEngine,
    *,
    budget: RunBudget | None = None,
    max_attempts: int = 2,
    on_progress: ProgressCallback | None = None,
) -> TaskCounts:
    """Run the batch's missing symbols, then (however it ended) write its index: CLI and REST alike."""
    try:
        return service.run(
            job_id, work, engine, max_attempts=max_attempts, budget=budget, on_progress=on_progress
        )
    finally:
        engine.close()
        try:
            write_index(config, job_id, service.rows(job_id), service.counts(job_id))
        except Exception:  # never hide how the run ended behind a failed index
            logger.exception("batch %s: could not write its index", job_id)
