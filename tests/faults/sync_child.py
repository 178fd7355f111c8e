"""`data sync` over SDK stand-ins, as its own process so that a test can SIGKILL it mid-way.

    python -m tests.faults.sync_child DATABASE_URL RUN_ID [STALL_SYMBOL]

With STALL_SYMBOL the stand-in stalls inside that symbol's valuations call, after printing
"stalled": the moment a test kills the process (its security and bars are already written).
"""

from __future__ import annotations

import sys
import time
from datetime import date
from typing import Any

import pandas as pd

from stockdesk.data_engineering.application.sync_service import SyncService, SyncSummary
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.data_engineering.infrastructure.persistence.sync_state import SqlSyncStateRepository
from stockdesk.data_engineering.infrastructure.providers.akshare_provider import AkShareProvider
from stockdesk.shared.db import Database
from tests.data_engineering.provider_fakes import FAST, FixtureAkShare, fast_limiter, no_sleep

SYMBOLS = ["600001.SH", "600002.SH", "600003.SH"]
TODAY = date(2024, 12, 31)
START, END = date(2024, 1, 1), date(2024, 1, 31)
FIXTURE_CODE = "600001"


class ManyStocksAkShare(FixtureAkShare):
    """The akshare stand-in answering every A-share code from the 600001 fixture files."""

    def __init__(self, stall_code: str | None = None):
        super().__init__()
        self.stall_code = stall_code

    def _read(self, name: str, params: dict[str, Any], file: str) -> pd.DataFrame:
        code = params["symbol"]
        if name == "stock_value_em" and code == self.stall_code:
            print("stalled", flush=True)
            time.sleep(600)  # the test kills the process here
        frame = super()._read(name, params, file.replace(code, FIXTURE_CODE))
        if "股票代码" in frame.columns:
            frame["股票代码"] = code
        return frame


def sync_service(database: Database, sdk: FixtureAkShare) -> SyncService:
    provider = AkShareProvider(sdk, policy=FAST, limiter=fast_limiter(), sleep=no_sleep)
    repository = SqlMarketDataRepository(database)
    return SyncService({"CN": [provider]}, repository, SqlSyncStateRepository(database), today=lambda: TODAY)


def run(database: Database, sdk: FixtureAkShare, run_id: str) -> SyncSummary:
    return sync_service(database, sdk).sync("CN", SYMBOLS, START, END, run_id)


def main() -> None:
    url, run_id = sys.argv[1], sys.argv[2]
    stall = sys.argv[3].split(".")[0] if len(sys.argv) > 3 else None
    run(Database(url), ManyStocksAkShare(stall), run_id)


if __name__ == "__main__":
    main()
