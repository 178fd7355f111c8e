"""Stand-ins for the provider SDKs (not for our code): same function names and parameters as the real
akshare module, Tushare DataApi, yfinance module and SEC endpoints, answering from the fixture files
in `fixtures/providers/` and counting calls. `down` makes every call fail like an unreachable host."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pandas as pd

from stockdesk.data_engineering.infrastructure.providers.rate_limit import TokenBucket
from stockdesk.data_engineering.infrastructure.providers.resilience import CallPolicy

FIXTURES = Path(__file__).parent / "fixtures" / "providers"
FAST = CallPolicy(timeout=10.0, attempts=2, backoff=0.0, max_backoff=0.0)


def no_sleep(_seconds: float) -> None:
    """Backoff pauses are skipped in tests (their count is what matters)."""


def fast_limiter() -> TokenBucket:
    return TokenBucket(1_000.0, 1_000.0)


def offline_error(host: str) -> ConnectionError:
    return ConnectionError(f"HTTPSConnectionPool(host='{host}', port=443): Failed to resolve '{host}'")


class FixtureAkShare:
    """The akshare functions the provider uses. `unreachable` codes fail like a dead host (all if `down`);
    `bad_close` makes stock_zh_a_hist answer a negative price."""

    def __init__(self, *, down: bool = False, unreachable: tuple[str, ...] = (), bad_close: bool = False):
        self.folder = FIXTURES / "akshare"
        self.down = down
        self.unreachable = set(unreachable)
        self.bad_close = bad_close
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def _read(self, name: str, params: dict[str, Any], file: str) -> pd.DataFrame:
        self.calls.append((name, params))
        if self.down or params["symbol"] in self.unreachable:
            raise offline_error("push2his.eastmoney.com")
        path = self.folder / file
        return pd.read_csv(path, dtype={"股票代码": str}) if path.exists() else pd.DataFrame()

    def stock_zh_a_hist(
        self,
        symbol: str = "000001",
        period: str = "daily",
        start_date: str = "19700101",
        end_date: str = "20500101",
        adjust: str = "",
        timeout: float | None = None,
    ) -> pd.DataFrame:
        params = {"symbol": symbol, "start_date": start_date, "end_date": end_date, "adjust": adjust}
        suffix = "_hfq" if adjust == "hfq" else ""
        frame = self._read("stock_zh_a_hist", params, f"stock_zh_a_hist{suffix}_{symbol}.csv")
        if frame.empty:
            return frame
        days = pd.to_datetime(frame["日期"])
        frame = frame[(days >= pd.Timestamp(start_date)) & (days <= pd.Timestamp(end_date))].copy()
        frame["日期"] = pd.to_datetime(frame["日期"]).dt.date  # the SDK returns datetime.date values
        if self.bad_close:
            frame["收盘"] = -1.0
        return frame.reset_index(drop=True)

    def stock_zh_a_hist_min_em(
        self,
        symbol: str = "000001",
        start_date: str = "1979-09-01 09:32:00",
        end_date: str = "2222-01-01 09:32:00",
        period: str = "5",
        adjust: str = "",
    ) -> pd.DataFrame:
        """akshare/stock_feature/stock_hist_em.py (akshare 1.19.5), its kline branch: the frame is cut to
        [start_date, end_date] by 时间 (the bar's end) and 时间 comes back as text. Only the 5-minute
        unadjusted bars exist in the fixture: other periods or adjustments are refused, not faked."""
        params = {"symbol": symbol, "start_date": start_date, "end_date": end_date, "period": period}
        frame = self._read(
            "stock_zh_a_hist_min_em", {**params, "adjust": adjust}, f"stock_zh_a_hist_min_em_{symbol}.csv"
        )
        if (period, adjust) != ("5", ""):
            raise ValueError(f"the fixture holds period='5', adjust='' bars, not {period=} {adjust=}")
        if frame.empty:
            return frame
        frame.index = pd.to_datetime(frame["时间"])
        frame = frame[start_date:end_date].reset_index(drop=True)  # type: ignore[misc]
        frame["时间"] = pd.to_datetime(frame["时间"]).astype(str)
        return frame

    def stock_individual_info_em(self, symbol: str = "603777", timeout: float | None = None) -> pd.DataFrame:
        return self._read(
            "stock_individual_info_em", {"symbol": symbol}, f"stock_individual_info_em_{symbol}.csv"
        )

    def stock_value_em(self, symbol: str = "300766") -> pd.DataFrame:
        return self._read("stock_value_em", {"symbol": symbol}, f"stock_value_em_{symbol}.csv")

    def stock_financial_analysis_indicator(
        self, symbol: str = "600004", start_year: str = "1900"
    ) -> pd.DataFrame:
        params = {"symbol": symbol, "start_year": start_year}
        return self._read(
            "stock_financial_analysis_indicator", params, f"stock_financial_analysis_indicator_{symbol}.csv"
        )

    def stock_news_em(self, symbol: str = "603777") -> pd.DataFrame:
        """akshare/news/news_stock.py: 发布时间 is a `YYYY-MM-DD HH:MM:SS` string (Beijing time)."""
        self.calls.append(("stock_news_em", {"symbol": symbol}))
        if self.down or symbol in self.unreachable:
            raise offline_error("search-api-web.eastmoney.com")
        path = self.folder / f"stock_news_em_{symbol}.csv"
        return pd.read_csv(path, dtype=str) if path.exists() else pd.DataFrame()


class FixtureTushareClient:
    """`tushare.pro_api()`'s DataApi endpoints used by the provider (one CSV per endpoint)."""

    TEXT = dict.fromkeys(("ts_code", "trade_date", "ann_date", "end_date", "list_date", "symbol"), str)

    def __init__(self, *, down: bool = False):
        self.folder = FIXTURES / "tushare_api"
        self.down = down
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def _answer(self, api: str, params: dict[str, Any]) -> pd.DataFrame:
        self.calls.append((api, params))
        if self.down:
            raise offline_error("api.waditu.com")
        frame = pd.read_csv(self.folder / f"{api}.csv", dtype=self.TEXT)
        frame = frame[frame["ts_code"] == params["ts_code"]]
        if "start_date" in params and "trade_date" in frame.columns:
            day = frame["trade_date"]
            frame = frame[(day >= params["start_date"]) & (day <= params["end_date"])]
        return frame.reset_index(drop=True)

    def stock_basic(self, **params: Any) -> pd.DataFrame:
        return self._answer("stock_basic", params)

    def daily(self, **params: Any) -> pd.DataFrame:
        return self._answer("daily", params)

    def adj_factor(self, **params: Any) -> pd.DataFrame:
        return self._answer("adj_factor", params)

    def daily_basic(self, **params: Any) -> pd.DataFrame:
        return self._answer("daily_basic", params)

    def fina_indicator(self, **params: Any) -> pd.DataFrame:
        return self._answer("fina_indicator", params)


class FixtureYFinance:
    """The yfinance module as the provider uses it: `Ticker(code).history(...)` and `.info`."""

    def __init__(self, *, down: bool = False):
        self.folder = FIXTURES / "yfinance"
        self.down = down
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    def Ticker(self, code: str) -> _FixtureTicker:  # yfinance spells it so
        return _FixtureTicker(self, code)


class _FixtureTicker:
    def __init__(self, sdk: FixtureYFinance, code: str):
        self.sdk = sdk
        self.code = code

    def history(self, **params: Any) -> pd.DataFrame:
        self.sdk.calls.append(("history", self.code, params))
        if self.sdk.down:
            raise offline_error("query2.finance.yahoo.com")
        if params.get("interval", "1d") == "5m":
            return self._intraday(params)
        path = self.sdk.folder / f"history_{self.code}.csv"
        if not path.exists():
            return pd.DataFrame()
        frame = pd.read_csv(path)
        index = pd.DatetimeIndex(pd.to_datetime(frame.pop("Date"), utc=True), name="Date")
        return frame.set_index(index.tz_convert("America/New_York"))

    def _intraday(self, params: dict[str, Any]) -> pd.DataFrame:
        """yfinance/scrapers/history.py with interval="5m": bar starts in the exchange's zone on an
        index named `Datetime`; `start` inclusive and `end` exclusive, both dates in that zone."""
        path = self.sdk.folder / f"history_5m_{self.code}.csv"
        if not path.exists():
            return pd.DataFrame()
        frame = pd.read_csv(path)
        index = pd.DatetimeIndex(pd.to_datetime(frame.pop("Datetime"), utc=True), name="Datetime")
        frame = frame.set_index(index.tz_convert("America/New_York"))
        start = pd.Timestamp(params["start"], tz="America/New_York")
        end = pd.Timestamp(params["end"], tz="America/New_York")
        return frame[(frame.index >= start) & (frame.index < end)]

    def get_news(self, count: int = 10, tab: str = "news") -> list[dict[str, Any]]:
        """yfinance/base.py TickerBase.get_news: Yahoo's stream items, nested under `content`."""
        self.sdk.calls.append(("get_news", self.code, {"count": count, "tab": tab}))
        if self.sdk.down:
            raise offline_error("query2.finance.yahoo.com")
        path = self.sdk.folder / f"news_{self.code}.json"
        return json.loads(path.read_text())[:count] if path.exists() else []

    @property
    def news(self) -> list[dict[str, Any]]:
        return self.get_news()

    @property
    def info(self) -> dict[str, Any] | None:
        self.sdk.calls.append(("info", self.code, {}))
        if self.sdk.down:
            return None  # what yfinance returns when Yahoo cannot be reached
        path = self.sdk.folder / f"info_{self.code}.json"
        return json.loads(path.read_text()) if path.exists() else {}


class SecFixtureServer:
    """An httpx transport answering the SEC endpoints from `fixtures/providers/sec/`."""

    def __init__(self) -> None:
        self.folder = FIXTURES / "sec"
        self.requests: list[httpx.Request] = []
        self.transport = httpx.MockTransport(self._handle)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if path == "/files/company_tickers.json":
            file = self.folder / "company_tickers.json"
        elif path.startswith("/submissions/"):
            file = self.folder / path.rsplit("/", 1)[1].replace(".json", "_submissions.json")
        elif path.startswith("/api/xbrl/companyfacts/"):
            file = self.folder / path.rsplit("/", 1)[1].replace(".json", "_companyfacts.json")
        elif path.startswith("/Archives/edgar/data/"):  # a filing's documents: www.sec.gov, HTML
            file = self.folder / "archives" / path.rsplit("/", 1)[1]
            if file.exists():
                return httpx.Response(200, content=file.read_bytes(), headers={"Content-Type": "text/html"})
        else:
            return httpx.Response(404, json={"error": "not found"})
        if not file.exists():
            return httpx.Response(404, json={"error": "not found"})
        return httpx.Response(200, content=file.read_bytes(), headers={"Content-Type": "application/json"})
