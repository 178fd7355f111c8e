"""Start and resume an evaluation as a server job: the one way REST and the web UI both do it.

Bounds (symbols, window) are checked first, then the service plans the points (404 UNKNOWN_SYMBOL,
400 EMPTY_WINDOW) before anything runs; only a job with points left is handed to the executor, so
posting a finished config again just answers its job. A stopped one is resumed by its id through
the job kinds (`shared.tasks.kinds`), which call `resume_evaluation`.
"""

from __future__ import annotations

from stockdesk.evaluation.application.evaluation_service import EvaluationService
from stockdesk.evaluation.domain.dtos import EvaluationConfig, EvaluationJob
from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.shared.tasks.executor import JobExecutor

KIND = "evaluation"


def launch_evaluation(
    service: EvaluationService, jobs: JobExecutor, bounds: RequestBounds, config: EvaluationConfig
) -> EvaluationJob:
    """Check, open (or reopen) the durable job and submit what it still lacks; its state as started."""
    bounds.check_universe(config.symbols)
    bounds.check_window(config.start, config.end)
    job = service.start(config)
    if job.pending:
        resume_evaluation(service, jobs, job.job_id)
    return job


def resume_evaluation(
    service: EvaluationService, jobs: JobExecutor, job_id: str, bounds: RequestBounds | None = None
) -> None:
    """Hand the stored job to the executor: it computes the points still missing. With `bounds`
    the job's symbols and window are checked first, as its start checks them: a job opened
    elsewhere (the CLI) may ask for more than a server request may (422)."""
    if bounds is not None:
        config = EvaluationConfig.model_validate(service.status(job_id).config)
        bounds.check_universe(config.symbols)
        bounds.check_window(config.start, config.end)
    jobs.submit(KIND, job_id, lambda: service.finish(job_id))  # scored when done: its page reads it
