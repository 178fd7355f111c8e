"""What every page router gets: the app's container, the job runner, the page renderer and the
batch launcher (the one REST's batch route starts batches with)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from stockdesk.coordinator.presentation.batch_jobs import BatchLauncher
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
    batches: BatchLauncher
