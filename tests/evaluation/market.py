"""A generated A-share market in a real store, for the evaluation tests and benchmark.

Random-walk prices (seeded), a dividend (adj_factor step), suspended days (no bar, and a bar with
volume 0), quarterly year-to-date reports announced a month after period end, and a restatement
announced later, so that point in time has something to get wrong.
"""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

START, END = date(2021, 1, 4), date(2024, 6, 28)


def symbols(n: int) -> list[str]:
    return [f"{600000 + i:06d}.SH" for i in range(n)]


def market_frames(
    names: list[str], *, start: date = START, end: date = END, seed: int = 7
) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    days = pd.bdate_range(start, end)
    bars, valuations, reports, securities = [], [], [], []
    for i, symbol in enumerate(names):
        steps = rng.normal(0.0003 * ((i % 5) - 2), 0.02, len(days))
        close = np.round(20 * np.exp(np.cumsum(steps)), 2)
        pre_close = np.concatenate([[close[0]], close[:-1]])
        open_ = np.round(pre_close * (1 + rng.normal(0, 0.005, len(days))), 2)
        factor = np.where(days >= pd.Timestamp(start) + pd.Timedelta(days=400), 1.05, 1.0)
        volume = np.full(len(days), 1e6)
        keep = np.ones(len(days), dtype=bool)
        keep[100 + i % 7 : 103 + i % 7] = False  # suspended: no bars
        volume[200 + i % 11] = 0.0  # suspended: a bar with no volume
        frame = pd.DataFrame(
            {
                "symbol": symbol,
                "trade_date": days,
                "open": open_,
                "high": np.maximum(open_, close) * 1.01,
                "low": np.minimum(open_, close) * 0.99,
                "close": close,
                "pre_close": pre_close,
                "volume": volume,
                "amount": volume * close,
                "adj_factor": factor,
            }
        )[keep]
        bars.append(frame)
        eps_scale = rng.uniform(0.5, 1.5)
        valuations.append(
            pd.DataFrame(
                {
                    "symbol": symbol,
                    "trade_date": frame["trade_date"],
                    "close": frame["close"],
                    "total_mv": frame["close"] * 1e9,
                    "pe_ttm": frame["close"] / (1.2 * eps_scale),
                    "pb": frame["close"] / 8.0,
                }
            )
        )
        for end_q in pd.date_range(start - timedelta(days=800), end, freq="QE"):
            months = end_q.month
            growth = 1 + 0.1 * np.sin(end_q.year + i) + rng.normal(0, 0.05)
            ytd = months / 12
            row = {
                "symbol": symbol,
                "end_date": end_q.date(),
                "ann_date": (end_q + pd.Timedelta(days=30)).date(),
                "report_type": None,
                "eps": round(1.2 * eps_scale * ytd * growth, 4),
                "bps": 8.0 + 0.1 * (end_q.year - 2019),
                "roe": 15.0 * ytd * growth,
                "grossprofit_margin": 30.0,
                "netprofit_margin": 12.0,
                "debt_to_assets": 45.0 + i % 40,
                "revenue": 1e10 * ytd * growth,
                "profit_dedt": 1e9 * ytd * growth,
                "net_profit": 1.05e9 * ytd * growth,
                "ocfps": 1.1 * eps_scale * ytd,
            }
            reports.append(row)
            if end_q.month == 12 and i % 2 == 0:  # restated a quarter later, with lower profits
                reports.append(
                    {**row, "ann_date": (end_q + pd.Timedelta(days=120)).date(),
                     "profit_dedt": row["profit_dedt"] * 0.8, "eps": round(row["eps"] * 0.8, 4)}
                )  # fmt: skip
        securities.append(
            {
                "symbol": symbol,
                "name": f"测试{i}" if i % 9 else f"ST测试{i}",
                "industry": "测试",
                "market": "CN",
                "exchange": "SH",
                "currency": "CNY",
                "list_date": "2000-01-01",
            }
        )
    return {
        "securities": pd.DataFrame(securities),
        "bars": pd.concat(bars, ignore_index=True),
        "valuations": pd.concat(valuations, ignore_index=True),
        "financials": pd.DataFrame(reports),
    }


def populate(database: Database, names: list[str], **kwargs: object) -> dict[str, pd.DataFrame]:
    """Import the generated market into `database` through the real import service."""
    frames = market_frames(names, **kwargs)  # type: ignore[arg-type]
    MarketDataImportService(SqlMarketDataRepository(database)).import_frames("test", frames)
    return frames
