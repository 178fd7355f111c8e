"""The server's batch launcher: how REST and the web UI start a batch analysis.

Each symbol is analysed by a worker that builds its own container from the server's settings, on
Ray (`batch_workers` at once, `ray_address` or a local Ray), its report written under
`<home>/batches`, the whole run capped at the per-request token budget. Built here, not in the
container, because a worker builds containers itself (the container may not import it back).
"""

from __future__ import annotations

from stockdesk.coordinator.presentation.batch_jobs import BatchLauncher
from stockdesk.entrypoints.batch.analyze_work import AnalyzeSymbolsWork
from stockdesk.entrypoints.batch.workers import batch_engine
from stockdesk.entrypoints.container import AppContainer


def server_batch_launcher(container: AppContainer) -> BatchLauncher:
    """The launcher over `container`'s batch service and job executor (both built on first use)."""
    settings = container.settings
    return BatchLauncher(
        service=lambda: container.batch_analysis,
        jobs=lambda: container.jobs,
        make_work=lambda config: AnalyzeSymbolsWork(settings, config),
        make_engine=lambda: batch_engine(settings.batch_workers, ray_address=settings.ray_address),
        out_root=lambda: settings.home / "batches",
        bounds=container.bounds,
        max_tokens=settings.api_max_tokens_per_request,
    )
