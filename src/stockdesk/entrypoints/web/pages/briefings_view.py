"""What the briefing pages show: a job's state and steps, and the finished script read by chapters.

Formatting only: the steps are the durable job's, the script is the job's stored `BriefingScript`
(spec 7.4), split by its own chapter ranges; sources are named as the script gives them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from stockdesk.briefing.application import BriefingJob
from stockdesk.briefing.domain.dtos import TICKER_CHAPTER_PREFIX, BriefingScript
from stockdesk.briefing.presentation.audio import AudioStatus
from stockdesk.debate.application import ArticleSource, ChartSource, EventSource, SecFilingSource
from stockdesk.entrypoints.web.pages.jobs_view import JobPanel

FINISHED = {"done": "completed", "failed": "failed", "cancelled": "cancelled", "interrupted": "interrupted"}
BASE_CHAPTERS = ("opening", "theme", "closing")


@dataclass
class BriefingForm:
    """The start form's fields as typed (shown again with a refusal)."""

    date: str = ""
    tickers: str = ""
    max_rounds: str = ""
    audio: bool = False


@dataclass(frozen=True)
class StepView:
    key: str
    ticker: str | None  # None: the refine step
    status: str
    attempts: int
    error: str | None


@dataclass(frozen=True)
class BriefingView:
    id: str
    date: str
    tickers: str
    state: str  # queued | running | cancelling | completed | failed | cancelled | interrupted
    live: bool
    done: int
    total: int
    steps: list[StepView]
    error: str | None
    audio: AudioStatus

    @property
    def panel(self) -> JobPanel:
        """The briefing page's progress panel: steps done; a briefing stopped before it was written
        may resume (each step not done gets another attempt)."""
        return JobPanel(
            id=self.id, kind="briefing", state=self.state, live=self.live,
            done=self.done, total=self.total, settled=self.done,
            resumable=not self.live and self.state != "completed",
        )  # fmt: skip


def show_date(day: str) -> str:
    """The script's `YYYYMMDD` as `YYYY-MM-DD` (anything else as it is)."""
    return f"{day[:4]}-{day[4:6]}-{day[6:]}" if len(day) == 8 and day.isdigit() else day


def briefing_view(job: BriefingJob, executor_state: str | None, audio: AudioStatus) -> BriefingView:
    """The executor says whether it runs here now; a stored unfinished job nothing runs was cut off."""
    state = executor_state or FINISHED.get(job.status, "interrupted")
    steps = [StepView(s.key, s.ticker, s.status, s.attempts, s.error) for s in job.steps]
    return BriefingView(
        id=job.job_id,
        date=show_date(job.date),
        tickers=", ".join(job.tickers),
        state=state,
        live=executor_state is not None,
        done=job.done,
        total=job.total,
        steps=steps,
        error=job.error,
        audio=audio,
    )


@dataclass(frozen=True)
class SourceView:
    kind: str  # article | chart | event | sec_filing
    text: str


@dataclass(frozen=True)
class TurnView:
    id: int
    speaker: str
    text: str
    sources: list[SourceView]


@dataclass
class ChapterView:
    name: str
    ticker: str | None  # the ticker of a ticker chapter
    base: bool  # opening / theme / closing (their names are translated)
    turns: list[TurnView] = field(default_factory=list)


def _source(source: object) -> SourceView:
    if isinstance(source, ArticleSource):
        return SourceView("article", source.title)
    if isinstance(source, ChartSource):
        return SourceView("chart", f"{source.ticker} {source.start_date} – {source.end_date}")
    if isinstance(source, EventSource):
        return SourceView("event", f"{source.title} ({source.date})")
    if isinstance(source, SecFilingSource):
        return SourceView(
            "sec_filing", f"{source.ticker} {source.form} {source.filed_date} ({source.accession_number})"
        )
    return SourceView("other", str(source))


def chapters(script: BriefingScript) -> list[ChapterView]:
    """The script's chapters in order, each with its turns (ids start_id..end_id); turns outside every
    chapter's range are kept in a last, unnamed chapter so nothing of the script is hidden."""
    turns = {t.id: TurnView(t.id, t.speaker, t.text, [_source(s) for s in t.sources]) for t in script.scripts}
    shown: set[int] = set()
    result: list[ChapterView] = []
    for chapter in script.chapter:
        ticker = (
            chapter.name.removeprefix(TICKER_CHAPTER_PREFIX)
            if chapter.name.startswith(TICKER_CHAPTER_PREFIX)
            else None
        )
        view = ChapterView(chapter.name, ticker, chapter.name in BASE_CHAPTERS)
        for turn_id in range(chapter.start_id, chapter.end_id + 1):
            if turn_id in turns and turn_id not in shown:
                view.turns.append(turns[turn_id])
                shown.add(turn_id)
        result.append(view)
    rest = [turn for turn_id, turn in sorted(turns.items()) if turn_id not in shown]
    if rest:
        result.append(ChapterView("", None, False, rest))
    return result
