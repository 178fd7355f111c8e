"""Builders for research tests: inputs with known numbers, a store with them, scripted answers."""

from __future__ import annotations

import json
from datetime import date, timedelta

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.research.domain.dtos.financial import AuditFinanceRecordInput
from stockdesk.research.domain.dtos.valuation import (
    FinanceRecordInput,
    StockOverviewInput,
    ValuationDailyInput,
)
from stockdesk.shared.db import Database

AS_OF = date(2024, 6, 28)

# Eight quarters, year-to-date figures, announced a month after period end.
QUARTERS = [
    # end_date, eps, bps, profit_dedt, gross margin
    ("2022-06-30", 0.50, 9.0, 500.0, 30.0),
    ("2022-09-30", 0.80, 9.2, 800.0, 30.5),
    ("2022-12-31", 1.00, 9.5, 1000.0, 31.0),
    ("2023-03-31", 0.30, 9.6, 300.0, 31.5),
    ("2023-06-30", 0.60, 9.8, 600.0, 32.0),
    ("2023-09-30", 0.90, 10.0, 900.0, 32.5),
    ("2023-12-31", 1.20, 10.2, 1200.0, 33.0),
    ("2024-03-31", 0.40, 10.4, 390.0, 33.7),
]


def finance_records(quarters: list[tuple] = QUARTERS) -> list[FinanceRecordInput]:
    return [
        FinanceRecordInput(
            end_date=date.fromisoformat(end),
            ann_date=date.fromisoformat(end) + timedelta(days=30),
            eps=eps,
            bps=bps,
            roe=12.5,
            grossprofit_margin=gm,
            netprofit_margin=18.0,
            debt_to_assets=40.0,
            profit_dedt=profit,
        )
        for end, eps, bps, profit, gm in quarters
    ]


def audit_records(quarters: list[tuple] = QUARTERS) -> list[AuditFinanceRecordInput]:
    """The quarters above as the financial auditor reads them (revenue 1000, 1100, ...)."""
    return [
        AuditFinanceRecordInput(
            end_date=date.fromisoformat(end),
            ann_date=date.fromisoformat(end) + timedelta(days=30),
            eps=eps,
            revenue=1000.0 + 100 * i,
            profit_dedt=profit,
            grossprofit_margin=gm,
            netprofit_margin=18.0,
            roe=12.5,
            ocfps=eps * 1.5,
            debt_to_assets=40.0,
            interestdebt=2.5e9,
            current_ratio=1.8,
            quick_ratio=1.2,
            ar_turn=3.0,
        )
        for i, (end, eps, _bps, profit, gm) in enumerate(quarters)
    ]


def dailies(n: int = 200, *, pe: list[float | None] | None = None) -> list[ValuationDailyInput]:
    """`n` trading days ending at AS_OF; pe_ttm 10, 11, ... unless given."""
    days = pd.bdate_range(end=AS_OF, periods=n)
    values = pe if pe is not None else [10.0 + i for i in range(n)]
    return [
        ValuationDailyInput(trade_date=d.date(), close=20.0, pe_ttm=v, pb=2.0 + i / 100, ps_ttm=3.0)
        for i, (d, v) in enumerate(zip(days, values, strict=True))
    ]


def overview(**changes: object) -> StockOverviewInput:
    base = dict(
        symbol="600001.SH", stock_name="示例银行", industry="银行", currency="CNY", trade_date=AS_OF,
        close=20.0, total_mv=123_456_000_000.0, pe_ttm=15.0, pb=2.0, ps_ttm=3.0, dv_ratio=1.5,
    )  # fmt: skip
    base.update(changes)
    return StockOverviewInput(**base)  # type: ignore[arg-type]


def populate_store(
    database: Database,
    symbol: str = "600001.SH",
    days: int = 300,
    *,
    ps_ttm: float | None = 3.0,
    quarters: list[tuple] = QUARTERS,
) -> None:
    """A real store with one security, its valuations and the eight quarters above (or `quarters`)."""
    repo = SqlMarketDataRepository(database)
    service = MarketDataImportService(repo)
    dates = pd.bdate_range(end=AS_OF, periods=days)
    pe = np.linspace(10, 30, days)
    frames = {
        "securities": pd.DataFrame(
            [
                {
                    "symbol": symbol,
                    "name": "示例银行",
                    "industry": "银行",
                    "market": "CN",
                    "exchange": "SH",
                    "currency": "CNY",
                    "list_date": "2000-01-01",
                    "provider_codes": {"tushare": symbol},
                }
            ]
        ),
        "bars": pd.DataFrame(
            {
                "symbol": symbol,
                "trade_date": dates,
                "open": 20.0,
                "high": 21.0,
                "low": 19.0,
                "close": 20.0,
                "volume": 1e6,
                "amount": 2e7,
                "adj_factor": 1.0,
            }
        ),
        "valuations": pd.DataFrame(
            {
                "symbol": symbol,
                "trade_date": dates,
                "close": 20.0,
                "total_mv": 1.2e11,
                "pe_ttm": pe,
                "pb": 2.0,
                "ps_ttm": ps_ttm,
                "dv_ratio": 1.5,
            }
        ),
    }
    if quarters:
        frames["financials"] = pd.DataFrame(
            [{"symbol": symbol, **r.model_dump(), "report_type": None} for r in finance_records(quarters)]
        )
    service.import_frames("test", frames)


def valuation_answer(**changes: object) -> str:
    """A grounded, schema-valid valuation answer (numbers taken from the store above)."""
    answer = {
        "valuation_verdict": "Fair",
        "confidence_score": 0.6,
        "estimated_intrinsic_value_range": {"lower_bound": "格雷厄姆内在价值附近", "upper_bound": "数据不足"},
        "key_evidence": ["PE(TTM) 为 30.0，处于历史 100 分位", "ROE 为 12.5%"],
        "risk_factors": ["估值回归风险"],
        "reasoning_summary": "估值处于历史高位，更像陷阱而非机会。",
    }
    answer.update(changes)
    return json.dumps(answer, ensure_ascii=False)
