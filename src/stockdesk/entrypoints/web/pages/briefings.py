"""The briefing pages: start one and list the past ones; a briefing's live progress, then its script.

Starting goes through `briefing.presentation.jobs` (what the REST routes call); the page's Cancel
and Resume post to the general jobs routes (`pages/jobs.py`). Progress is the durable job's plus
whether the executor runs it now, so a reload or a second tab sees the same. The audio route serves
only the WAV of the job named in its path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import FileResponse, RedirectResponse, StreamingResponse
from starlette.responses import Response

from stockdesk.briefing.application import BriefingJobs
from stockdesk.briefing.presentation.audio import audio_file, audio_status
from stockdesk.briefing.presentation.jobs import configured, launch_briefing
from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.briefings_view import BriefingForm, BriefingView, briefing_view, chapters
from stockdesk.entrypoints.web.pages.form_text import split_list
from stockdesk.entrypoints.web.pages.jobs import moved_to_jobs
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException, NotFoundException, StockdeskError
from stockdesk.shared.sse import HEADERS, progress_events

INDEX = "briefings/index.html.j2"
DETAIL = "briefings/detail.html.j2"
LIST_SIZE = 20


def _rounds(text: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    if not text.isdigit():
        raise BadRequestException(
            f"max rounds must be a whole number, got {text!r}", code="INVALID_MAX_ROUNDS"
        )
    return int(text)


def build_briefings_router(deps: WebDeps) -> APIRouter:
    router = APIRouter(include_in_schema=False)
    _list_routes(router, deps)
    _briefing_routes(router, deps)
    return router


def _service(deps: WebDeps) -> BriefingJobs:
    return configured(deps.container.briefing.jobs)


def _folder(deps: WebDeps) -> Path:
    return deps.container.briefing_audio


def _view(deps: WebDeps, job_id: str) -> BriefingView:
    live = deps.jobs().state_of(job_id)  # first: a job ending in between then reads as ended
    job = _service(deps).status(job_id)
    return briefing_view(job, live, audio_status(_folder(deps), job.job_id))


def _list_routes(router: APIRouter, deps: WebDeps) -> None:
    """The briefings list and its form."""

    def index(request: Request, form: BriefingForm, error: StockdeskError | None = None) -> Response:
        jobs = deps.container.briefing.jobs
        listed = [_view(deps, job.job_id) for job in jobs.recent(LIST_SIZE)] if jobs is not None else []
        context = {"form": form, "error": error, "jobs": listed, "configured": jobs is not None}
        return deps.pages.render(request, INDEX, context, status_code=error.http_status if error else 200)

    @router.get("/briefings")
    def briefings(request: Request) -> Response:
        return index(request, BriefingForm())

    @router.post("/briefings")
    def start(
        request: Request,
        date: str = Form(""),
        tickers: str = Form(""),
        max_rounds: str = Form(""),
        audio: str = Form(""),
    ) -> Response:
        """Start (or resume, or just add the audio of) a briefing as REST does, then its page."""
        form = BriefingForm(date, tickers, max_rounds, audio == "on")
        try:
            job = launch_briefing(
                _service(deps),
                deps.jobs(),
                parse_day(date.strip() or None) or _missing_date(),
                split_list(tickers),
                max_rounds=_rounds(max_rounds),
                audio_folder=_folder(deps) if form.audio else None,
            )
        except StockdeskError as exc:
            return index(request, form, exc)
        return RedirectResponse(f"/briefings/{job.job_id}", status_code=303)


def _briefing_routes(router: APIRouter, deps: WebDeps) -> None:
    """One briefing: its page, live events and audio (its old cancel route redirects)."""

    def service() -> BriefingJobs:
        return _service(deps)

    def view(job_id: str) -> BriefingView:
        return _view(deps, job_id)

    def detail_context(briefing: BriefingView) -> dict[str, Any]:
        return {"job": briefing}

    @router.get("/briefings/{job_id}")
    def detail(request: Request, job_id: str) -> Response:
        """Live: the steps over SSE. Written: the script by chapters (and its audio when made)."""
        briefing = view(job_id)
        context = detail_context(briefing)
        written = briefing.state == "completed" or (briefing.live and briefing.done == briefing.total)
        context["chapters"] = chapters(service().result(job_id).script) if written else []
        return deps.pages.render(request, DETAIL, context)

    @router.get("/briefings/{job_id}/events")
    def events(request: Request, job_id: str) -> StreamingResponse:
        """The progress panel as an HTML fragment per change (`progress`), then `done`."""
        view(job_id)  # 404 before the stream starts
        stream = progress_events(
            lambda: view(job_id),
            lambda briefing: deps.pages.render_text(request, DETAIL, "progress", detail_context(briefing)),
            lambda briefing: not briefing.live,
            event="progress",
        )
        return StreamingResponse(stream, media_type="text/event-stream", headers=HEADERS)

    @router.post("/briefings/{job_id}/cancel")
    def cancel(job_id: str) -> Response:
        """Moved to the jobs route (307), which comes back to this briefing's page."""
        return moved_to_jobs(job_id, "cancel", f"/briefings/{job_id}")

    @router.get("/briefings/{job_id}/audio")
    def audio(job_id: str) -> Response:
        """This briefing's spoken script (404 when it has none)."""
        job = service().status(job_id)
        path = audio_file(_folder(deps), job.job_id)
        if not path.is_file():
            raise NotFoundException(f"briefing {job_id} has no audio", code="AUDIO_NOT_FOUND")
        return FileResponse(path, media_type="audio/wav", filename=f"briefing-{job.date}.wav")


def _missing_date() -> Any:
    raise BadRequestException("give the briefing's date (YYYY-MM-DD)", code="INVALID_DATE")
