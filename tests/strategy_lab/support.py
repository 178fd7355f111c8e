"""A small real store for strategy-lab tests: six A-shares with known trends and YTD reports."""

from __future__ import annotations

import json
from datetime import date

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.db import Database

END = date(2024, 6, 28)
DAYS = 700
# symbol -> (daily drift, yearly revenue growth): steady risers, a faller, a flat one
SYMBOLS = {
    "600001.SH": (0.0012, 0.30),
    "600002.SH": (0.0008, 0.20),
    "600003.SH": (0.0004, 0.10),
    "000004.SZ": (0.0000, 0.00),
    "000005.SZ": (-0.0006, -0.15),
    "000006.SZ": (0.0010, -0.10),
}
TYPES = {3: "Q1", 6: "H1", 9: "Q3", 12: "A"}

PARAMS = {
    "strategy_type": "momentum",
    "momentum_period": 20,
    "ma_periods": 60,
    "catalyst_type": "revenue",
    "catalyst_lookback": 2,
    "n_stocks": 5,
    "stop_loss": 0.1,
    "resample": "W",
    "resample_offset": 0,
}
# The spec's example set, used by the schema, generator and feedback tests.
VALID = {
    "momentum_period": 20,
    "ma_periods": 60,
    "catalyst_type": "revenue",
    "catalyst_lookback": 3,
    "n_stocks": 15,
    "stop_loss": 0.10,
    "resample": "W",
    "resample_offset": 0,
}
REASONING_SPEC = "Twenty-day momentum with a 60-day trend filter; revenue catalysts are reliable here."
REASONING = "Twenty-day momentum above the sixty-day trend, with growing revenue, held weekly in five names."


# One valid set of each of the other families (the sample has prices for all of them).
MEAN_REVERSION = {
    "strategy_type": "mean_reversion",
    "lookback": 20,
    "entry_z": 1.5,
    "exit_z": 0.5,
    "trend_ma": 0,
    "n_stocks": 5,
    "stop_loss": 0.08,
    "resample": "D",
    "resample_offset": 0,
}
VOLATILITY = {
    "strategy_type": "volatility",
    "vol_period": 60,
    "max_vol": 0.35,
    "target_vol": 0.15,
    "trend_ma": 0,
    "n_stocks": 5,
    "stop_loss": 0.1,
    "resample": "W",
    "resample_offset": 0,
}
FAMILY_PARAMS = {"momentum": PARAMS, "mean_reversion": MEAN_REVERSION, "volatility": VOLATILITY}


def sections(params: dict, reasoning: str = REASONING) -> str:
    """An answer in the strategist's layout: REASONING, then JSON (fenced, as models often write it)."""
    return f"REASONING:\n{reasoning}\n\nJSON:\n```json\n{json.dumps({'params': params})}\n```"


def answer(reasoning: str = REASONING, *, family: str = "momentum", **changes: object) -> str:
    """A strategist answer with `family`'s sample set, `changes` applied (the momentum set by default)."""
    return sections({**FAMILY_PARAMS[family], **changes}, reasoning)


def prices(symbol: str, days: int = DAYS) -> np.ndarray:
    drift, _ = SYMBOLS[symbol]
    rng = np.random.default_rng(sum(map(ord, symbol)))  # fixed per symbol: reruns see the same prices
    steps = drift + rng.normal(0.0, 0.012, days)
    return 10.0 * np.exp(np.cumsum(steps))


def financial_rows(symbol: str, dates: pd.DatetimeIndex) -> list[dict]:
    """Quarterly YTD revenue (and deducted profit, a tenth of it) growing at the symbol's rate,
    announced 30 days after each quarter."""
    _, growth = SYMBOLS[symbol]
    rows = []
    quarter_ends = pd.date_range(dates[0] - pd.Timedelta(days=400), END, freq="QE-DEC")
    for i, end in enumerate(quarter_ends):
        position = end.month // 3
        ytd = sum(100.0 * (1 + growth) ** ((i - k) / 4) for k in range(position))
        rows.append(
            {
                "symbol": symbol,
                "end_date": end.date(),
                "ann_date": (end + pd.Timedelta(days=30)).date(),
                "report_type": TYPES[end.month],
                "revenue": ytd * 1e6,
                "profit_dedt": ytd * 1e5,  # net profit after non-recurring items: a tenth of revenue
            }
        )
    return rows


def populate(database: Database, *, without: tuple[str, ...] = (), days: int = DAYS) -> None:
    """The six symbols; `without` names financial columns left empty (e.g. revenue, as in Tushare's
    fina_indicator)."""
    service = MarketDataImportService(SqlMarketDataRepository(database))
    dates = pd.bdate_range(end=END, periods=days)
    securities, bars, financials = [], [], []
    for symbol in SYMBOLS:
        securities.append(
            {
                "symbol": symbol,
                "name": f"示例{symbol[:6]}",
                "industry": "测试",
                "market": "CN",
                "exchange": symbol[-2:],
                "currency": "CNY",
                "list_date": "2000-01-01",
                "provider_codes": {"tushare": symbol},
            }
        )
        close = prices(symbol, days)
        bars.append(
            pd.DataFrame(
                {
                    "symbol": symbol,
                    "trade_date": dates,
                    "open": close,
                    "high": close * 1.01,
                    "low": close * 0.99,
                    "close": close,
                    "volume": 1e6,
                    "amount": close * 1e6,
                    "adj_factor": 1.0,
                }
            )
        )
        financials.extend(financial_rows(symbol, dates))
    service.import_frames(
        "test",
        {
            "securities": pd.DataFrame(securities),
            "bars": pd.concat(bars, ignore_index=True),
            "financials": pd.DataFrame(financials).drop(columns=list(without)),
        },
    )
