"""What every page router gets: the app's container, the job runner and the page renderer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.web.templating import Pages
from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.shared.tasks.executor import JobExecutor


@dataclass(frozen=True)
class WebDeps:
    container: AppContainer
    pages: Pages
    bounds: RequestBounds
    jobs: Callable[[], JobExecutor]
