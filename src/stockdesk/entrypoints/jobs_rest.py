"""`/api/v1/jobs`: long work of every kind, live (this server's executor) and stored (the task table).

`GET /jobs` lists what this server runs or queues; `GET /jobs/{id}` answers any stored job (started
here, by the CLI or by another server) with its task counts; `/events` streams them; `cancel`
stops a job here at once and leaves a stop request for a runner in another process; `resume` hands
a stopped job of any kind that resumes in a server back to this server's executor.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from stockdesk.shared.errors import NotFoundException
from stockdesk.shared.sse import HEADERS, progress_events
from stockdesk.shared.tasks import ENDED_JOB_STATUSES, ITaskStore, JobStatus, TaskCounts
from stockdesk.shared.tasks.executor import JobExecutor
from stockdesk.shared.tasks.kinds import JobKinds


class ActiveJobDTO(BaseModel):
    kind: str
    job_id: str
    state: str


class StoredJobDTO(BaseModel):
    job_id: str
    kind: str
    status: JobStatus
    error: str | None
    live: str | None  # queued | running | cancelling while this server holds it
    cancel_requested: bool
    tasks: TaskCounts


def build_jobs_router(
    get_jobs: Callable[[], JobExecutor], get_store: Callable[[], ITaskStore], kinds: JobKinds | None = None
) -> APIRouter:
    """`kinds` says how each kind stops and resumes (shared.tasks.kinds); by default every kind
    stops through the executor and none resumes."""
    kinds = kinds or JobKinds(get_jobs, get_store)
    router = APIRouter(prefix="/jobs", tags=["jobs"])

    def stored(job_id: str) -> StoredJobDTO:
        store = get_store()
        live = get_jobs().state_of(job_id)  # first: a job ending in between then reads as ended
        job = store.get_job(job_id)
        if job is None:
            raise NotFoundException(f"no job {job_id}", code="JOB_NOT_FOUND")
        return StoredJobDTO(
            job_id=job.id, kind=job.kind, status=job.status, error=job.error,
            live=live, cancel_requested=job.cancel_reason is not None,
            tasks=store.counts(job.id),
        )  # fmt: skip

    @router.get("", response_model=list[ActiveJobDTO])
    def active() -> list[ActiveJobDTO]:
        """Long work this server is running or has queued (evaluations, batches, briefings, strategy runs)."""
        return [ActiveJobDTO(kind=j.kind, job_id=j.job_id, state=j.state) for j in get_jobs().active()]

    @router.get("/{job_id}", response_model=StoredJobDTO)
    def job(job_id: str) -> StoredJobDTO:
        """Any stored job with its task counts (404 JOB_NOT_FOUND)."""
        return stored(job_id)

    @router.get(
        "/{job_id}/events",
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}, "description": "progress as JSON events"}},
    )
    def events(job_id: str) -> StreamingResponse:
        """Server-sent events: the job whenever it changes, then `done` once it has ended."""
        stored(job_id)  # 404 now, not inside the stream

        def ended(state: StoredJobDTO) -> bool:
            return state.live is None and state.status in ENDED_JOB_STATUSES

        stream = progress_events(
            lambda: stored(job_id), lambda s: s.model_dump_json(), ended, event="progress"
        )
        return StreamingResponse(stream, media_type="text/event-stream", headers=HEADERS)

    @router.post("/{job_id}/cancel", response_model=ActiveJobDTO, status_code=202)
    def cancel(job_id: str) -> ActiveJobDTO:
        """Stop a job at its next step, here or in the process running it (404 unknown or ended)."""
        done = kinds.cancel(job_id, "cancelled", remote_reason="cancelled over the API")
        return ActiveJobDTO(kind=done.kind, job_id=job_id, state=done.state)

    @router.post("/{job_id}/resume", response_model=ActiveJobDTO, status_code=202)
    def resume(job_id: str) -> ActiveJobDTO:
        """Run a stopped job again from where it stopped, finished work kept (404 JOB_NOT_FOUND; 409
        NOT_RESUMABLE for a kind that resumes only by its own command, which the message names, e.g.
        `stockdesk jobs resume <id>` for batch analyses and sweeps; JOB_RUNNING or JOB_DONE; 422 an
        evaluation over this server's bounds)."""
        done = kinds.resume(job_id)
        return ActiveJobDTO(kind=done.kind, job_id=job_id, state=done.state)

    return router
