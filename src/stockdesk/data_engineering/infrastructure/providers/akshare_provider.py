"""AkShare (A-shares, no token) -> canonical frames.

SDK functions used (akshare 1.19, column names from their source):
- `akshare/stock_feature/stock_hist_em.py: stock_zh_a_hist(symbol, period, start_date, end_date, adjust,
  timeout)` -> 日期, 股票代码, 开盘, 收盘, 最高, 最低, 成交量, 成交额, 振幅, 涨跌幅, 涨跌额, 换手率.
  Eastmoney units: 成交量 in lots of 100 shares, 成交额 in CNY, 涨跌幅 in percent. Called twice,
  unadjusted (adjust="") and back-adjusted (adjust="hfq"): adj_factor = hfq close / unadjusted close,
  which grows over time like Tushare's adj_factor and does not change when new days are appended.
- `akshare/stock/stock_info_em.py: stock_individual_info_em(symbol, timeout)` -> item/value rows
  股票代码, 股票简称, 总股本, 流通股, 行业, 总市值, 流通市值, 上市时间 (YYYYMMDD int), 最新.
- `akshare/stock_feature/stock_value_em.py: stock_value_em(symbol)` (the current replacement of the
  removed `stock_a_indicator_lg`) -> 数据日期, 当日收盘价, 当日涨跌幅, 总市值 (CNY), 流通市值 (CNY), 总股本,
  流通股本, PE(TTM), PE(静), 市净率, PEG值, 市现率, 市销率 (PS TTM).
- `akshare/stock_fundamental/stock_finance_sina.py: stock_financial_analysis_indicator(symbol,
  start_year)` -> 日期 plus ~85 Sina indicator columns named like 加权每股收益(元), 销售毛利率(%).
  Sina gives no announcement date, so `ann_date` is the statutory deadline of the period (Q1 04-30,
  H1 08-31, Q3 10-31, annual 04-30 of the next year): never earlier than the real announcement, so
  point-in-time reads cannot see a report before it was public. `extra.ann_date_estimated` says so.
- `akshare/stock_feature/stock_hist_em.py: stock_zh_a_hist_min_em(symbol, start_date, end_date, period,
  adjust)` with period="5", adjust="" (prices as traded, as the store keeps them; the SDK takes no
  timeout) -> 时间 (`YYYY-MM-DD HH:MM:SS` text, Beijing time, the bar's END: 09:35 ... 15:00), 开盘,
  收盘, 最高, 最低, 涨跌幅, 涨跌额, 成交量 (lots of 100 shares), 成交额 (CNY), 振幅, 换手率 (its kline
  branch; the SDK cuts the frame to [start_date, end_date] by 时间). Read with the `akshare-em`
  layout of `importers/intraday_csv.py`, the one a saved CSV of the same call is read with. Eastmoney
  serves recent minute bars only: an older window answers empty.
- `akshare/news/news_stock.py: stock_news_em(symbol)` (Eastmoney news search, the latest ~10 items,
  whatever the dates) -> 关键词, 新闻标题, 新闻内容 (an excerpt: stored as summary), 发布时间
  (`YYYY-MM-DD HH:MM:SS`, Beijing time: stored as naive UTC like all news), 文章来源, 新闻链接.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date
from types import ModuleType
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd

from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.exceptions import ProviderUnavailableError
from stockdesk.data_engineering.domain.ports import IMarketDataProvider, INewsProvider
from stockdesk.data_engineering.domain.symbols import CURRENCY, exchange_of
from stockdesk.data_engineering.infrastructure.importers.intraday_csv import LAYOUTS, layout_to_canonical
from stockdesk.data_engineering.infrastructure.providers.common import (
    empty,
    import_sdk,
    in_window,
    require,
    with_rows,
    ymd,
)
from stockdesk.data_engineering.infrastructure.providers.rate_limit import TokenBucket
from stockdesk.data_engineering.infrastructure.providers.resilience import CallPolicy, ProviderCaller

VOLUME_LOT = 100.0  # Eastmoney 成交量: lots of 100 shares

HIST_COLUMNS = ["日期", "开盘", "收盘", "最高", "最低", "成交量", "成交额", "涨跌幅", "涨跌额"]
VALUE_MAP = {  # stock_value_em column -> canonical valuation column
    "当日收盘价": "close",
    "总市值": "total_mv",
    "流通市值": "circ_mv",
    "PE(静)": "pe",
    "PE(TTM)": "pe_ttm",
    "市净率": "pb",
    "市销率": "ps_ttm",
}
FINANCIAL_MAP = {  # stock_financial_analysis_indicator column -> canonical financial column
    "加权每股收益(元)": "eps",
    "每股净资产_调整前(元)": "bps",
    "每股经营性现金流(元)": "ocfps",
    "净资产收益率(%)": "roe",
    "加权净资产收益率(%)": "roe_waa",
    "总资产净利润率(%)": "roa",
    "销售毛利率(%)": "grossprofit_margin",
    "销售净利率(%)": "netprofit_margin",
    "资产负债率(%)": "debt_to_assets",
    "扣除非经常性损益后的净利润(元)": "profit_dedt",
    "流动比率": "current_ratio",
    "速动比率": "quick_ratio",
    "应收账款周转率(次)": "ar_turn",
    "存货周转率(次)": "inv_turn",
    "应收账款周转天数(天)": "arturn_days",
    "存货周转天数(天)": "invturn_days",
    "主营业务收入增长率(%)": "or_yoy",
    "净利润增长率(%)": "netprofit_yoy",
}
NEWS_MAP = {  # stock_news_em column -> canonical news column
    "新闻标题": "title",
    "新闻内容": "summary",
    "发布时间": "published_at",
    "文章来源": "source",
    "新闻链接": "url",
}
BEIJING = ZoneInfo("Asia/Shanghai")
# month of the period end -> MMDD of its disclosure deadline; annual reports are due the next year
DEADLINE_MMDD = {3: 430, 6: 831, 9: 1031, 12: 430}
DEADLINE_NEXT_YEAR = {3: 0, 6: 0, 9: 0, 12: 1}


def statutory_ann_date(end_date: pd.Series) -> pd.Series:
    """Latest legal disclosure date of each report period; other period ends get end + 120 days."""
    end = pd.to_datetime(end_date)
    mmdd = end.dt.month.map(DEADLINE_MMDD)
    year = end.dt.year + end.dt.month.map(DEADLINE_NEXT_YEAR)
    stamp = (year * 10_000 + mmdd).astype("Int64").astype("string")
    deadline = pd.to_datetime(stamp, format="%Y%m%d", errors="coerce")
    return deadline.where(mmdd.notna(), end + pd.Timedelta(days=120))


def hist_to_bars(raw: pd.DataFrame, hfq: pd.DataFrame, symbol: str) -> pd.DataFrame:
    """stock_zh_a_hist (unadjusted) + the hfq series of the same days -> canonical bars."""
    require(raw, HIST_COLUMNS, "akshare", "stock_zh_a_hist")
    days = pd.to_datetime(raw["日期"])
    close = pd.to_numeric(raw["收盘"], errors="coerce")
    factor = pd.Series(np.nan, index=raw.index)
    if not hfq.empty:
        require(hfq, ["日期", "收盘"], "akshare", "stock_zh_a_hist(hfq)")
        hfq_close = pd.Series(
            pd.to_numeric(hfq["收盘"], errors="coerce").to_numpy(), index=pd.to_datetime(hfq["日期"])
        )
        hfq_close = hfq_close[~hfq_close.index.duplicated()]
        factor = pd.Series(days.map(hfq_close).to_numpy(), index=raw.index) / close
    bars = pd.DataFrame(
        {
            "symbol": symbol,
            "trade_date": days,
            "open": raw["开盘"],
            "high": raw["最高"],
            "low": raw["最低"],
            "close": close,
            "pre_close": close - pd.to_numeric(raw["涨跌额"], errors="coerce"),
            "pct_chg": raw["涨跌幅"],
            "volume": pd.to_numeric(raw["成交量"], errors="coerce") * VOLUME_LOT,
            "amount": pd.to_numeric(raw["成交额"], errors="coerce"),
            "adj_factor": factor,
        }
    )
    return with_rows(bars)


def min_em_to_bars(raw: pd.DataFrame, symbol: str) -> pd.DataFrame:
    """stock_zh_a_hist_min_em(period="5") -> canonical 5-minute bars (starts in UTC, volume in shares)."""
    require(raw, list(LAYOUTS["akshare-em"]), "akshare", "stock_zh_a_hist_min_em")
    bars, problems = layout_to_canonical(with_rows(raw), symbol, "akshare-em", BEIJING.key)
    if problems:
        first = problems[0]
        raise ProviderUnavailableError(
            f"akshare stock_zh_a_hist_min_em: row {first.row}: {first.reason}"
            + (f" (+{len(problems) - 1} more)" if len(problems) > 1 else "")
        )
    return bars


def info_to_security(info: pd.DataFrame, symbol: str) -> pd.DataFrame:
    require(info, ["item", "value"], "akshare", "stock_individual_info_em")
    values = dict(zip(info["item"], info["value"], strict=True))
    if not values.get("股票简称"):
        return empty(F.SECURITY_COLUMNS)
    listed = pd.to_numeric(pd.Series([values.get("上市时间")]), errors="coerce").iloc[0]
    row = {
        "symbol": symbol,
        "name": values.get("股票简称"),
        "industry": values.get("行业") or None,
        "market": "CN",
        "exchange": exchange_of(symbol),
        "currency": CURRENCY["CN"],
        "list_date": str(int(listed)) if pd.notna(listed) and listed > 0 else None,
        "provider_codes": {"akshare": symbol.split(".")[0]},
    }
    return with_rows(pd.DataFrame([row], columns=F.SECURITY_COLUMNS))


def value_to_valuations(value: pd.DataFrame, symbol: str, start: date, end: date) -> pd.DataFrame:
    require(value, ["数据日期", *VALUE_MAP], "akshare", "stock_value_em")
    window = in_window(value, "数据日期", start, end)
    out = pd.DataFrame({"symbol": symbol, "trade_date": pd.to_datetime(window["数据日期"])})
    for source, column in VALUE_MAP.items():
        out[column] = pd.to_numeric(window[source], errors="coerce")
    for column in F.VALUATION_COLUMNS:
        if column not in out.columns:
            out[column] = np.nan
    out["is_derived"] = False
    return with_rows(out[F.VALUATION_COLUMNS])


def indicator_to_financials(indicator: pd.DataFrame, symbol: str) -> pd.DataFrame:
    require(indicator, ["日期"], "akshare", "stock_financial_analysis_indicator")
    end = pd.to_datetime(indicator["日期"], errors="coerce")
    out = pd.DataFrame({"symbol": symbol, "end_date": end, "ann_date": statutory_ann_date(end)})
    for source, column in FINANCIAL_MAP.items():
        out[column] = pd.to_numeric(indicator[source], errors="coerce") if source in indicator else np.nan
    extra_cols = [c for c in indicator.columns if c not in FINANCIAL_MAP and c != "日期"]
    extras = indicator[extra_cols].apply(pd.to_numeric, errors="coerce")
    out["extra"] = [
        {"ann_date_estimated": True, **{k: float(v) for k, v in record.items() if pd.notna(v)}}
        for record in extras.to_dict("records")
    ]
    return with_rows(out)


def news_to_frame(raw: pd.DataFrame, symbol: str, start: date, end: date) -> pd.DataFrame:
    """stock_news_em -> canonical news published on Beijing days [start, end], times in naive UTC."""
    require(raw, list(NEWS_MAP), "akshare", "stock_news_em")
    text = raw["发布时间"].astype("string").str.strip()
    local = pd.to_datetime(text, format="%Y-%m-%d %H:%M:%S", errors="coerce")
    bad = local.isna() & text.fillna("").ne("")
    if bad.any():
        value = text[bad].iloc[0]
        raise ProviderUnavailableError(f"akshare stock_news_em: 发布时间 {value!r} is not a time")
    days = local.dt.normalize()
    keep = (days >= pd.Timestamp(start)) & (days <= pd.Timestamp(end))
    window = raw[keep].rename(columns=NEWS_MAP)
    out = pd.DataFrame(
        {
            "symbol": symbol,
            "published_at": local[keep].dt.tz_localize(BEIJING).dt.tz_convert("UTC").dt.tz_localize(None),
            "title": window["title"].astype("string").str.strip(),
            "summary": window["summary"].astype("string").str.split().str.join(" "),
            "body": None,
            "url": window["url"].astype("string").str.strip(),
            "source": window["source"].astype("string").str.strip(),
        }
    )
    out = out[out["title"].fillna("").ne("") & out["url"].fillna("").ne("")]
    return with_rows(out.drop_duplicates("url")[F.NEWS_COLUMNS])


class AkShareProvider(IMarketDataProvider, INewsProvider):
    """A-shares from Eastmoney/Sina through AkShare; `sdk` is the akshare module (or a stand-in)."""

    name = "akshare"
    markets = ("CN",)
    serves_bars_5m = True

    def __init__(
        self,
        sdk: ModuleType | Any | None = None,
        *,
        policy: CallPolicy | None = None,
        limiter: TokenBucket | None = None,
        financial_years: int = 6,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self._sdk = sdk
        self.policy = policy or CallPolicy()
        self.call = ProviderCaller(self.name, limiter or TokenBucket(2.0, 2.0), self.policy, sleep=sleep)
        self.financial_years = financial_years

    @property
    def sdk(self) -> Any:
        if self._sdk is None:
            self._sdk = import_sdk("akshare")
        return self._sdk

    def security(self, symbol: str) -> pd.DataFrame:
        info = self.call(
            "stock_individual_info_em",
            self.sdk.stock_individual_info_em,
            symbol=symbol.split(".")[0],
            timeout=self.policy.timeout,
        )
        return info_to_security(info, symbol)

    def _hist(self, symbol: str, start: date, end: date, adjust: str) -> pd.DataFrame:
        return self.call(
            f"stock_zh_a_hist(adjust={adjust!r})",
            self.sdk.stock_zh_a_hist,
            symbol=symbol.split(".")[0],
            period="daily",
            start_date=ymd(start),
            end_date=ymd(end),
            adjust=adjust,
            timeout=self.policy.timeout,
        )

    def bars(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        raw = self._hist(symbol, start, end, "")
        if raw is None or raw.empty:
            return empty(F.BAR_COLUMNS)
        return hist_to_bars(raw, self._hist(symbol, start, end, "hfq"), symbol)

    def bars_5m(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        """5-minute bars labelled (by their end) 09:35 of `start` ... 15:00 of `end`, Beijing time."""
        raw = self.call(
            "stock_zh_a_hist_min_em(period='5')",
            self.sdk.stock_zh_a_hist_min_em,
            symbol=symbol.split(".")[0],
            start_date=f"{start.isoformat()} 09:00:00",
            end_date=f"{end.isoformat()} 15:30:00",
            period="5",
            adjust="",
        )
        if raw is None or raw.empty:
            return empty(F.INTRADAY_COLUMNS)
        return min_em_to_bars(raw, symbol)

    def valuations(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        value = self.call("stock_value_em", self.sdk.stock_value_em, symbol=symbol.split(".")[0])
        if value is None or value.empty:
            return empty(F.VALUATION_COLUMNS)
        return value_to_valuations(value, symbol, start, end)

    def financials(self, symbol: str) -> pd.DataFrame:
        indicator = self.call(
            "stock_financial_analysis_indicator",
            self.sdk.stock_financial_analysis_indicator,
            symbol=symbol.split(".")[0],
            start_year=str(date.today().year - self.financial_years),
        )
        if indicator is None or indicator.empty:
            return empty(F.FINANCIAL_COLUMNS)
        return indicator_to_financials(indicator, symbol)

    def news(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        """The latest Eastmoney news of the stock that fall in [start, end] (Beijing dates)."""
        raw = self.call("stock_news_em", self.sdk.stock_news_em, symbol=symbol.split(".")[0])
        if raw is None or raw.empty:
            return empty(F.NEWS_COLUMNS)
        return news_to_frame(raw, symbol, start, end)
