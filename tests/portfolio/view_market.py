"""A hand-built A-share market for the portfolio view's tests: 220 trading days of five names (two
banks that move together, an insurer, a carmaker, and a name listed late), imported into a real
store; `perturb_after` shifts every bar after that day (the point-in-time test)."""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

BANK1, BANK2, INSURER, CAR, LATE = "600000.SH", "600001.SH", "600002.SH", "000002.SZ", "000003.SZ"
SYMBOLS = (BANK1, BANK2, INSURER, CAR, LATE)
INDUSTRIES = {BANK1: "银行", BANK2: "银行", INSURER: "保险", CAR: "汽车", LATE: "汽车"}
DAYS = [d.date() for d in pd.bdate_range(date(2023, 3, 1), periods=220)]
AS_OF = DAYS[199]


def _returns() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    n = len(DAYS)
    common = rng.normal(0, 0.015, n)
    return {
        BANK1: common + rng.normal(0, 0.005, n),
        BANK2: common + rng.normal(0, 0.005, n),
        INSURER: rng.normal(0, 0.012, n),
        CAR: rng.normal(0, 0.02, n),
        LATE: rng.normal(0, 0.02, n),
    }


def populate(database: Database, *, perturb_after: date | None = None) -> None:
    rows = []
    for symbol, moves in _returns().items():
        close = 10.0
        for i, day in enumerate(DAYS):
            if symbol == LATE and i < 180:
                continue  # listed 20 days before AS_OF: too little history to size
            change = float(np.clip(moves[i], -0.09, 0.09))
            if perturb_after is not None and day > perturb_after:
                change = -0.05
            pre, close = close, round(close * (1 + change), 2)
            rows.append(
                {"symbol": symbol, "trade_date": pd.Timestamp(day), "open": pre, "high": max(pre, close),
                 "low": min(pre, close), "close": close, "pre_close": pre, "volume": 1e6, "amount": 1e7,
                 "adj_factor": 1.0}
            )  # fmt: skip
    securities = pd.DataFrame(
        [
            {"symbol": s, "name": f"测试{i}", "industry": INDUSTRIES[s], "market": "CN",
             "exchange": "SH" if s.endswith(".SH") else "SZ", "currency": "CNY", "list_date": "2000-01-01"}
            for i, s in enumerate(SYMBOLS)
        ]
    )  # fmt: skip
    MarketDataImportService(SqlMarketDataRepository(database)).import_frames(
        "portfolio-view-test", {"securities": securities, "bars": pd.DataFrame(rows)}
    )
