"""`data sync` over REST: start a run (202, it runs as a job of the server) and poll its progress.

POST checks the request first (400 MARKET / INVALID_SYMBOL / INVALID_DATE / SYMBOL_REQUIRED /
INVALID_DATASET, 422 over the bounds, 429 when the job queue is full); GET answers the run's
per-symbol progress, each dataset's outcome and every provider failure with its reason (404
SYNC_RUN_NOT_FOUND).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, Field

from stockdesk.data_engineering.application.sync_runs import SyncProgress, SyncRuns
from stockdesk.data_engineering.application.sync_service import ALL_DATASETS
from stockdesk.data_engineering.presentation.sync_jobs import launch_sync
from stockdesk.shared.access.bounds import RequestBounds
from stockdesk.shared.dates import IsoDay
from stockdesk.shared.symbol_text import SymbolText


class SyncBody(BaseModel):
    market: str = Field(pattern=r"^(?i:cn|us|hk|tw)$", examples=["cn"], description="cn, us, hk or tw")
    symbols: list[SymbolText] = Field(min_length=1, max_length=2000, examples=[["600519.SH", "000001.SZ"]])
    start: IsoDay | None = Field(default=None, description="first day; default five years before `end`")
    end: IsoDay | None = Field(default=None, description="last day; default today")
    datasets: list[Annotated[str, Field(max_length=20)]] | None = Field(
        default=None,
        max_length=len(ALL_DATASETS),
        examples=[["bars", "bars_5m"]],
        description=f"what to fetch, of {', '.join(ALL_DATASETS)} (another name: 400 INVALID_DATASET); "
        "default security, bars, valuations and financials. bars_5m: 5-minute "
        "bars (AkShare for A-shares; yfinance keeps only the last 60 days: an older start is refused "
        "for that dataset, recorded as its failure)",
    )


def build_sync_router(get_runs: Callable[[], SyncRuns], bounds: RequestBounds | None = None) -> APIRouter:
    router = APIRouter(prefix="/data/sync", tags=["market data"])
    limits = bounds or RequestBounds()

    @router.post("", response_model=SyncProgress, status_code=202)
    def start(body: SyncBody) -> SyncProgress:
        """Fetch the symbols' datasets (default securities, bars, valuations and financials) as a job;
        answers the run."""
        return launch_sync(get_runs(), limits, body.market, body.symbols, body.start, body.end, body.datasets)

    @router.get("/{run_id}", response_model=SyncProgress)
    def progress(run_id: str) -> SyncProgress:
        """The run's state, each symbol's datasets and the providers' failures with their reasons."""
        return get_runs().progress(run_id)

    return router
