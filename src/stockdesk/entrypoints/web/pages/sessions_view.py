"""The sessions list's filters and paging, and what the session page adds to the report's view.

Filters are checked here as the REST list checks them (a bad date or state is a 400 with the
reason), so the page never lists something other than what its filter form says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from stockdesk.coordinator.application import ResearchSession, SessionStatus
from stockdesk.coordinator.application.coordinator_service import retryable
from stockdesk.coordinator.presentation.reports.view import build_view
from stockdesk.coordinator.presentation.reports.view_model import ReportView
from stockdesk.shared.dates import parse_day
from stockdesk.shared.errors import BadRequestException

PAGE_SIZE = 20
ACTIONS = ("BUY", "SELL", "HOLD")
STATUSES = tuple(s.value for s in SessionStatus)
DOWNLOADS = ("md", "html", "pdf", "docx", "json")  # pdf: the HTML printed; docx: Word (shared/exports)


@dataclass(frozen=True)
class SessionFilters:
    """The list's filter form as typed (empty = no filter)."""

    symbol: str = ""
    action: str = ""
    status: str = ""
    since: str = ""
    offset: int = 0

    @classmethod
    def parse(cls, symbol: str, action: str, status: str, since: str, offset: int) -> SessionFilters:
        filters = cls(symbol.strip().upper(), action.strip().upper(), status.strip().lower(), since.strip())
        if filters.action and filters.action not in ACTIONS:
            raise BadRequestException(
                f"unknown verdict '{action}': choose {', '.join(ACTIONS)}", code="BAD_ACTION"
            )
        if filters.status and filters.status not in STATUSES:
            raise BadRequestException(
                f"unknown status '{status}': choose {', '.join(STATUSES)}", code="BAD_STATUS"
            )
        parse_day(filters.since or None)  # 400 INVALID_DATE now, before anything is read
        if offset < 0:
            raise BadRequestException("offset must be >= 0", code="BAD_PAGING")
        return cls(filters.symbol, filters.action, filters.status, filters.since, offset)

    def query(self) -> dict[str, Any]:
        """Keyword arguments of ResearchCoordinatorService.list."""
        return {
            "symbol": self.symbol or None,
            "action": self.action or None,
            "status": self.status or None,
            "since": parse_day(self.since or None),
            "offset": self.offset,
            "limit": PAGE_SIZE,
        }

    def page_url(self, offset: int) -> str:
        """This list at another offset, with the same filters."""
        params = {k: v for k, v in (("symbol", self.symbol), ("action", self.action),
                                    ("status", self.status), ("since", self.since)) if v}  # fmt: skip
        if offset:
            params["offset"] = str(offset)
        return "/sessions" + (f"?{urlencode(params)}" if params else "")


@dataclass(frozen=True)
class PageChart:
    """A stored chart for the page: its ChartSpec as a dict (charts.js draws it), or why not."""

    title: str
    caption: str
    spec: dict[str, Any] | None
    problem: str


@dataclass(frozen=True)
class SessionPage:
    report: ReportView
    state: str  # AnalysisProgress.state: `interrupted` for a session stored as running that nothing runs
    charts: list[PageChart]
    can_retry: bool
    parent_id: str | None
    downloads: tuple[str, ...] = DOWNLOADS


def session_page(session: ResearchSession, state: str, lang: str = "en") -> SessionPage:
    """The report's view with its figures (expert figures, trade plan) worded in the page's language."""
    report = build_view(session, lang)
    charts = [
        PageChart(
            title=c.title,
            caption=c.caption,
            spec=c.spec.model_dump(mode="json") if c.spec is not None else None,
            problem=c.problem,
        )
        for c in report.charts
    ]
    return SessionPage(
        report=report,
        state=state,
        charts=charts,
        can_retry=retryable(session),
        parent_id=session.parent_session_id,
    )
