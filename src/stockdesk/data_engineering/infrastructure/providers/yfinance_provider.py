"""yfinance (US, HK, TW) -> canonical bars with dividends, and basic info.

- `yfinance/scrapers/history.py: PriceHistory.history` via `Ticker(code).history(period="max",
  auto_adjust=False, actions=True, raise_errors=True, timeout=...)` -> DatetimeIndex `Date`
  (exchange time zone) and columns Open, High, Low, Close, Adj Close, Volume, Dividends, Stock Splits.
  Volume is in shares. Yahoo restates its whole history after every split (prices, volume and
  dividends in today's shares); canonical bars hold the prices traded that day, as the CSV importer
  stores them (`importers/yfinance_csv.py`), so the days before each split are put back on the basis
  they traded on (x the product of the later split ratios) and a later split does not change the bars
  already stored. Adj Close also takes dividends out. adj_factor = (Adj Close / traded close) / the
  same ratio on the first day of the full history: it grows at each dividend and split like
  Tushare's back-adjusted factor and does not change when days are appended, which is why the whole
  history is fetched and then cut to the asked window. Cash dividends (per share as paid, on the
  ex-date) ride along in the optional `cash_dividend` column for the dividends table, split ratios
  (on the ex-date) in `split_ratio` for the splits table.
- The same `PriceHistory.history` with `interval="5m", start, end (exclusive), prepost=False,
  auto_adjust=False, actions=False` -> DatetimeIndex `Datetime` (bar STARTS in the exchange's zone:
  `index.name = "Datetime"` for intraday intervals, `utils.set_df_tz`) and columns Open, High, Low,
  Close, Adj Close, Volume (shares): read with the `yfinance` layout of `importers/intraday_csv.py`,
  as a saved CSV of it is. Regular session only; no amount. Yahoo keeps intraday bars for 60 days
  ("Intraday data cannot extend last 60 days", the history docstring; `period="max"` asks 5m bars
  from 60 days back): a window starting earlier is refused here, before any call, saying so.
- `Ticker(code).info` (quoteSummary dict): longName/shortName, industry, exchange, currency,
  firstTradeDateEpochUtc (seconds) or firstTradeDateMilliseconds. An empty answer is a failure
  (yfinance returns None instead of raising when Yahoo cannot be reached).
- `yfinance/base.py: TickerBase.get_news(count, tab="news")` (yfinance 1.7) returns Yahoo's
  `data.tickerStream.stream` items minus ads, as Yahoo sends them: `{"id", "content": {"title",
  "summary", "pubDate" (ISO-8601 UTC, `2025-01-30T14:03:00Z`), "provider": {"displayName"},
  "canonicalUrl": {"url"}, "clickThroughUrl": {"url"} | None, ...}}` (older yfinance versions gave
  flat `link`/`providerPublishTime` items: not handled). Only the latest few items exist, whatever
  the dates; they are cut to the asked UTC days.
Yahoo has no daily valuation history and financials are taken from SEC: both return empty frames.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.data_engineering.application.validation import ROW
from stockdesk.data_engineering.domain import frames as F
from stockdesk.data_engineering.domain.exceptions import IntradayWindowError, ProviderUnavailableError
from stockdesk.data_engineering.domain.ports import IMarketDataProvider, INewsProvider
from stockdesk.data_engineering.domain.splits import ratio_after
from stockdesk.data_engineering.domain.symbols import CURRENCY, exchange_of, exchange_timezone, market_of
from stockdesk.data_engineering.infrastructure.importers.intraday_csv import layout_to_canonical
from stockdesk.data_engineering.infrastructure.providers.common import (
    empty,
    import_sdk,
    in_window,
    require,
    with_rows,
)
from stockdesk.data_engineering.infrastructure.providers.rate_limit import TokenBucket
from stockdesk.data_engineering.infrastructure.providers.resilience import CallPolicy, ProviderCaller

HISTORY_COLUMNS = ["Open", "High", "Low", "Close", "Adj Close", "Volume", "Dividends"]
INTRADAY_WINDOW_DAYS = 60  # Yahoo's 5-minute history: the last 60 days


def intraday_window_start(today: date) -> date:
    """The earliest exchange date Yahoo serves 5-minute bars of: 60 days back counted from now, so a
    day that starts more than 60 x 24 hours ago is out (Yahoo refuses the whole request then)."""
    return today - timedelta(days=INTRADAY_WINDOW_DAYS - 1)


def yahoo_code(symbol: str) -> str:
    """AAPL -> AAPL, BRK.B -> BRK-B, 00700.HK -> 0700.HK, 2330.TW -> 2330.TW."""
    market = market_of(symbol)
    if market == "HK":
        return f"{int(symbol.split('.')[0]):04d}.HK"
    if market == "US":
        return symbol.replace(".", "-")
    return symbol


def _numbers(history: pd.DataFrame, column: str) -> np.ndarray:
    return pd.to_numeric(history[column], errors="coerce").to_numpy(dtype="float64")


def history_to_bars(history: pd.DataFrame, symbol: str, start: date, end: date) -> pd.DataFrame:
    """Full Ticker.history -> canonical bars of [start, end] (see module docstring for adj_factor)."""
    require(history, HISTORY_COLUMNS, "yfinance", "Ticker.history")
    index = pd.DatetimeIndex(history.index)
    days = (index.tz_localize(None) if index.tz is not None else index).normalize()
    splits = _numbers(history, "Stock Splits") if "Stock Splits" in history else np.zeros(len(history))
    after = ratio_after(pd.Series(splits)).to_numpy()  # today's shares -> the shares of that day
    close = _numbers(history, "Close") * after
    ratio = _numbers(history, "Adj Close") / close
    first = ratio[np.isfinite(ratio)][0] if np.isfinite(ratio).any() else np.nan
    pre_close = np.concatenate([[np.nan], _numbers(history, "Close")[:-1]]) * after  # in that day's shares
    dividend = _numbers(history, "Dividends") * after
    bars = pd.DataFrame(
        {
            "symbol": symbol,
            "trade_date": days,
            "open": _numbers(history, "Open") * after,
            "high": _numbers(history, "High") * after,
            "low": _numbers(history, "Low") * after,
            "close": close,
            "pre_close": pre_close,
            "pct_chg": (close / pre_close - 1.0) * 100.0,
            "volume": _numbers(history, "Volume") / after,
            "amount": np.nan,
            "adj_factor": ratio / first,
            "cash_dividend": np.where(dividend > 0, dividend, np.nan),
            "split_ratio": np.where((splits > 0) & (splits != 1), splits, np.nan),
        }
    )
    return with_rows(in_window(bars, "trade_date", start, end))


def history_to_bars_5m(history: pd.DataFrame, symbol: str, start: date, end: date) -> pd.DataFrame:
    """Ticker.history(interval="5m") -> canonical 5-minute bars of exchange dates [start, end]."""
    require(history, ["Open", "High", "Low", "Close", "Volume"], "yfinance", "Ticker.history(5m)")
    index = pd.DatetimeIndex(history.index)
    if index.tz is None:
        raise ProviderUnavailableError("yfinance Ticker.history(5m): bar times without a time zone")
    frame = with_rows(history.set_axis(index.rename("Datetime")).reset_index())
    bars, problems = layout_to_canonical(frame, symbol, "yfinance", exchange_timezone(symbol))
    if problems:
        raise ProviderUnavailableError(
            f"yfinance Ticker.history(5m): row {problems[0].row}: {problems[0].reason}"
        )
    return with_rows(in_window(bars.drop(columns=[ROW]), "trade_date", start, end))


def news_items_to_frame(items: list[dict[str, Any]], symbol: str, start: date, end: date) -> pd.DataFrame:
    """Ticker.get_news items -> canonical news published on UTC days [start, end] (naive UTC)."""
    rows = []
    for item in items:
        content = item.get("content") if isinstance(item, dict) else None
        if not isinstance(content, dict):
            continue
        link = content.get("canonicalUrl") or content.get("clickThroughUrl") or {}
        rows.append(
            {
                "title": " ".join(str(content.get("title") or "").split()),
                "summary": " ".join(str(content.get("summary") or "").split()) or None,
                "url": str(link.get("url") or "").strip(),
                "source": (content.get("provider") or {}).get("displayName") or None,
                "published_at": content.get("pubDate"),
            }
        )
    if items and not rows:
        raise ProviderUnavailableError("yfinance Ticker.get_news: no item has a `content` object")
    frame = pd.DataFrame(rows, columns=["title", "summary", "url", "source", "published_at"])
    stamps = pd.to_datetime(frame["published_at"], utc=True, errors="coerce", format="ISO8601")
    bad = stamps.isna() & frame["published_at"].notna()
    if bad.any():
        value = frame.loc[bad, "published_at"].iloc[0]
        raise ProviderUnavailableError(f"yfinance Ticker.get_news: pubDate {value!r} is not ISO-8601")
    frame["published_at"] = stamps.dt.tz_localize(None)
    days = frame["published_at"].dt.normalize()
    frame = frame[(days >= pd.Timestamp(start)) & (days <= pd.Timestamp(end))]
    frame = frame[frame["title"].ne("") & frame["url"].ne("")].drop_duplicates("url")
    return with_rows(frame.assign(symbol=symbol, body=None)[F.NEWS_COLUMNS])


def info_to_security(info: dict[str, Any], symbol: str) -> pd.DataFrame:
    name = info.get("longName") or info.get("shortName")
    if not name:
        raise ProviderUnavailableError("yfinance Ticker.info: no name in the answer (unknown symbol?)")
    if info.get("firstTradeDateEpochUtc"):
        listed = pd.to_datetime(info["firstTradeDateEpochUtc"], unit="s").date()
    elif info.get("firstTradeDateMilliseconds"):
        listed = pd.to_datetime(info["firstTradeDateMilliseconds"], unit="ms").date()
    else:
        listed = None
    market = market_of(symbol)
    row = {
        "symbol": symbol,
        "name": name,
        "industry": info.get("industry"),
        "market": market,
        "exchange": info.get("exchange") or exchange_of(symbol),
        "currency": info.get("currency") or CURRENCY[market],
        "list_date": listed.isoformat() if listed else None,
        "provider_codes": {"yfinance": yahoo_code(symbol)},
    }
    return with_rows(pd.DataFrame([row], columns=F.SECURITY_COLUMNS))


class YFinanceProvider(IMarketDataProvider, INewsProvider):
    """`sdk` is the yfinance module (or anything with `Ticker(code).history(...)` and `.info`)."""

    name = "yfinance"
    markets = ("US", "HK", "TW")
    serves_bars_5m = True

    news_count = 20  # items asked of Ticker.get_news (Yahoo serves only the latest anyway)

    def __init__(
        self,
        sdk: Any | None = None,
        *,
        policy: CallPolicy | None = None,
        limiter: TokenBucket | None = None,
        sleep: Callable[[float], None] = time.sleep,
        today: Callable[[], date] = date.today,
    ):
        self._sdk = sdk
        self.policy = policy or CallPolicy()
        self.call = ProviderCaller(self.name, limiter or TokenBucket(2.0, 2.0), self.policy, sleep=sleep)
        self._today = today  # Yahoo's 60-day intraday window is counted from it

    @property
    def sdk(self) -> Any:
        if self._sdk is None:
            self._sdk = import_sdk("yfinance")
        return self._sdk

    def security(self, symbol: str) -> pd.DataFrame:
        sdk = self.sdk
        info = self.call("Ticker.info", lambda: sdk.Ticker(yahoo_code(symbol)).info)
        if not info:
            raise ProviderUnavailableError(
                "yfinance Ticker.info: empty answer (Yahoo unreachable or unknown)"
            )
        return info_to_security(info, symbol)

    def bars(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        sdk, timeout = self.sdk, self.policy.timeout
        history = self.call(
            "Ticker.history",
            lambda: sdk.Ticker(yahoo_code(symbol)).history(
                period="max",
                interval="1d",
                auto_adjust=False,
                actions=True,
                raise_errors=True,
                timeout=timeout,
            ),
        )
        if history is None or history.empty:
            return empty(F.BAR_COLUMNS)
        return history_to_bars(history, symbol, start, end)

    def bars_5m(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        """5-minute bars of the regular session; a `start` older than Yahoo's 60 days is refused."""
        earliest = intraday_window_start(self._today())
        if start < earliest:
            raise IntradayWindowError(
                f"yfinance keeps 5-minute bars for the last {INTRADAY_WINDOW_DAYS} days only: "
                f"{symbol} from {start} is older; start on {earliest} or later"
            )
        sdk, timeout = self.sdk, self.policy.timeout
        history = self.call(
            "Ticker.history(5m)",
            lambda: sdk.Ticker(yahoo_code(symbol)).history(
                start=start.isoformat(),
                end=(end + timedelta(days=1)).isoformat(),  # exclusive
                interval="5m",
                prepost=False,
                auto_adjust=False,
                actions=False,
                raise_errors=True,
                timeout=timeout,
            ),
        )
        if history is None or history.empty:
            return empty(F.INTRADAY_COLUMNS)
        return history_to_bars_5m(history, symbol, start, end)

    def valuations(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        return empty(F.VALUATION_COLUMNS)

    def financials(self, symbol: str) -> pd.DataFrame:
        return empty(F.FINANCIAL_COLUMNS)

    def news(self, symbol: str, start: date, end: date) -> pd.DataFrame:
        """The latest Yahoo news of the ticker that fall in [start, end] (UTC dates)."""
        sdk, count = self.sdk, self.news_count
        items = self.call("Ticker.get_news", lambda: sdk.Ticker(yahoo_code(symbol)).get_news(count=count))
        if not items:
            return empty(F.NEWS_COLUMNS)
        if not isinstance(items, list):
            raise ProviderUnavailableError(
                f"yfinance Ticker.get_news: expected a list, got {type(items).__name__}"
            )
        return news_items_to_frame(items, symbol, start, end)
