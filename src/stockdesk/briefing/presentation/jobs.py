"""Start and resume a briefing as a server job: the one way the REST API and the web UI both do it.

The request is checked first (400s, 404 UNKNOWN_TICKER) and names its durable job; the job is handed
to the executor unless it is finished (or this process already runs it). With an audio folder the
job also speaks the finished script to `<folder>/<job id>.wav` (see `briefing_audio`), so asking
for audio of a briefing that is already written only adds the audio. A stopped briefing is resumed
by its id through the job kinds (`shared.tasks.kinds`), which call `resume_briefing`: it speaks the
script too when audio was asked for and is not made yet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stockdesk.briefing.application import BriefingJob, BriefingJobs
from stockdesk.briefing.presentation.audio import audio_file, audio_status, request_audio, speak
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.tasks.executor import JobExecutor

KIND = "briefing"


def configured(jobs: BriefingJobs | None) -> BriefingJobs:
    """The briefing jobs, or 400 BRIEFING_NOT_CONFIGURED where this process cannot write briefings."""
    if jobs is None:
        raise BadRequestException(
            "briefings need the panel debate and the task store, not configured in this process",
            code="BRIEFING_NOT_CONFIGURED",
        )
    return jobs


def launch_briefing(
    service: BriefingJobs,
    executor: JobExecutor,
    day: Any,
    tickers: Any,
    base_script: Any = None,
    max_rounds: int | None = None,
    audio_folder: Path | None = None,
) -> BriefingJob:
    """Check, open (or reopen) the job and submit what it still lacks; its state as started."""
    job = service.start(day, tickers, base_script, max_rounds)
    wants_audio = audio_folder is not None and not audio_file(audio_folder, job.job_id).exists()
    if wants_audio and audio_folder is not None:
        request_audio(audio_folder, job.job_id)
    if (job.status != "done" or wants_audio) and not service.is_running(job.job_id):
        executor.submit(
            KIND, job.job_id, lambda: _run(service, job.job_id, audio_folder if wants_audio else None)
        )
    return job


def resume_briefing(service: BriefingJobs, executor: JobExecutor, job_id: str, audio_folder: Path) -> None:
    """Hand the stored briefing to the executor: it writes what is missing, then the audio if it
    was asked for (`audio_folder` holds the request) and is not there yet."""
    wants_audio = audio_status(audio_folder, job_id).state == "pending"
    executor.submit(KIND, job_id, lambda: _run(service, job_id, audio_folder if wants_audio else None))


def _run(service: BriefingJobs, job_id: str, audio_folder: Path | None) -> None:
    job = service.execute(job_id)
    if audio_folder is not None and job.status == "done":
        speak(service.result(job_id).script.scripts, audio_folder, job_id)
