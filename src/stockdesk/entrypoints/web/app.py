"""Mount the web UI on the API's app: static files, the page routers, HTML error pages."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response

from stockdesk.coordinator.presentation.batch_jobs import BatchLauncher
from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.web.deps import WebDeps
from stockdesk.entrypoints.web.pages.account import build_account_router
from stockdesk.entrypoints.web.templating import Pages, is_htmx
from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.shared.tasks.executor import JobExecutor

STATIC = "stockdesk.entrypoints.web"


def mount_web(
    app: FastAPI,
    container: AppContainer,
    bounds: RequestBounds,
    jobs: Callable[[], JobExecutor],
    batches: BatchLauncher,
) -> None:
    pages = Pages()
    deps = WebDeps(container=container, pages=pages, bounds=bounds, jobs=jobs, batches=batches)
    app.mount("/static", StaticFiles(packages=[(STATIC, "static")]), name="static")
    for build in _routers():
        app.include_router(build(deps))

    def ui_error(
        request: Request, status: int, code: str, message: str, details: Mapping[str, Any] | None = None
    ) -> Response:
        """The error as a page (or, for htmx, a fragment swapped where the answer would go), worded
        by its code in the page's language (Translator.error)."""
        context = {"status": status, "code": code, "message": message, "details": dict(details or {})}
        block = "content" if is_htmx(request) else None
        return pages.render(request, "error.html.j2", context, status_code=status, block=block)

    app.state.ui_error = ui_error


def _routers() -> list[Callable[[WebDeps], object]]:
    """Every page area's router builder (imported here so the list is the one place to add one)."""
    from stockdesk.entrypoints.web.pages import home
    from stockdesk.entrypoints.web.pages.analyze_area import ANALYZE_ROUTERS
    from stockdesk.entrypoints.web.pages.desk_area import DESK_ROUTERS
    from stockdesk.entrypoints.web.pages.labs_area import LAB_ROUTERS

    return [build_account_router, home.build_home_router, *ANALYZE_ROUTERS, *LAB_ROUTERS, *DESK_ROUTERS]
