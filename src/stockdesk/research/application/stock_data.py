"""StockData: what the numeric experts and the charts read of one symbol as of a day.

One plain client over data_engineering's use cases (its application interface): the security, its
bars, its daily valuations and its reports, each read only up to the analysis date and only as far
back as the snapshot windows look, turned into research's input types.
"""

from __future__ import annotations

from datetime import date, timedelta

from stockdesk.data_engineering.application import (
    GetDailyBarsUseCase,
    GetFinanceForTickerUseCase,
    GetStockBasicInfoUseCase,
    GetValuationDailiesForTickerUseCase,
)
from stockdesk.research.domain.dtos.financial import AuditFinanceRecordInput
from stockdesk.research.domain.dtos.technical import PriceBarInput
from stockdesk.research.domain.dtos.valuation import (
    FinanceRecordInput,
    StockOverviewInput,
    ValuationDailyInput,
)

BAR_DAYS = 550  # enough calendar days for MA250 plus warm-up
VALUATION_DAYS = 3 * 366 + 7  # a little more than the 3-year percentile window
RECENT_DAYS = 31
PERIODS_NEEDED = 12  # 8 shown + 4 for their year-earlier comparisons
VALUATION_PERIODS = 12


class StockData:
    def __init__(
        self,
        basic_info: GetStockBasicInfoUseCase,
        bars: GetDailyBarsUseCase,
        valuations: GetValuationDailiesForTickerUseCase,
        finance: GetFinanceForTickerUseCase,
    ):
        self._basic_info = basic_info
        self._bars = bars
        self._valuations = valuations
        self._finance = finance

    def get_stock_info(self, symbol: str) -> tuple[str, str, str] | None:
        """(canonical symbol, name, industry), or None when unknown."""
        security = self._basic_info.execute(symbol)
        if security is None:
            return None
        return security.symbol, security.name or security.symbol, security.industry or ""

    def get_price_bars(self, symbol: str, as_of: date) -> list[PriceBarInput]:
        rows = self._bars.execute(symbol, as_of=as_of, start=as_of - timedelta(days=BAR_DAYS))
        return [PriceBarInput.model_validate(r.model_dump()) for r in rows]

    def get_audit_records(self, symbol: str, as_of: date) -> list[AuditFinanceRecordInput]:
        """The reports as the financial auditor reads them."""
        reports = self._finance.execute(symbol, as_of=as_of, limit=PERIODS_NEEDED)
        fields = set(AuditFinanceRecordInput.model_fields)  # by name: net_profit, report_type come too
        return [
            AuditFinanceRecordInput.model_validate({k: v for k, v in r.model_dump().items() if k in fields})
            for r in reports
        ]

    def get_stock_overview(self, symbol: str, as_of: date) -> StockOverviewInput | None:
        """The security and its latest valuation row; None when the symbol is unknown."""
        security = self._basic_info.execute(symbol)
        if security is None:
            return None
        # the latest row only: read the last weeks first, the whole window only for stale data
        recent = as_of - timedelta(days=RECENT_DAYS)
        latest = self._valuations.execute(
            security.symbol, as_of=as_of, start=recent
        ) or self._valuations.execute(security.symbol, as_of=as_of, start=_valuation_start(as_of))
        last = latest[-1] if latest else None
        return StockOverviewInput(
            symbol=security.symbol,
            stock_name=security.name or security.symbol,
            industry=security.industry,
            third_code=(security.provider_codes or {}).get("tushare"),
            currency=security.currency,
            trade_date=last.trade_date if last else None,
            close=last.close if last else None,
            total_mv=last.total_mv if last else None,
            pe_ttm=last.pe_ttm if last else None,
            pb=last.pb if last else None,
            ps_ttm=last.ps_ttm if last else None,
            dv_ratio=(last.dv_ratio if last.dv_ratio is not None else last.dv_ttm) if last else None,
        )

    def get_valuation_dailies(self, symbol: str, as_of: date) -> list[ValuationDailyInput]:
        rows = self._valuations.execute(symbol, as_of=as_of, start=_valuation_start(as_of))
        return [
            ValuationDailyInput(
                trade_date=r.trade_date, close=r.close, pe_ttm=r.pe_ttm, pb=r.pb, ps_ttm=r.ps_ttm
            )
            for r in rows
        ]

    def get_finance_records(self, symbol: str, as_of: date) -> list[FinanceRecordInput]:
        """The reports as the valuation modeler reads them."""
        reports = self._finance.execute(symbol, as_of=as_of, limit=VALUATION_PERIODS)
        return [
            FinanceRecordInput(
                end_date=r.end_date,
                ann_date=r.ann_date,
                eps=r.eps,
                bps=r.bps,
                roe=r.roe,
                grossprofit_margin=r.grossprofit_margin,
                netprofit_margin=r.netprofit_margin,
                debt_to_assets=r.debt_to_assets,
                profit_dedt=r.profit_dedt,
                net_profit=r.net_profit,  # growth falls back to it where profit_dedt is absent (SEC)
                report_type=r.report_type,  # US fiscal years: the end month does not tell Q1/H1/Q3/A
            )
            for r in reports
        ]


def _valuation_start(as_of: date) -> date:
    return as_of - timedelta(days=VALUATION_DAYS)
