"""Provider adapters against fixture answers of the real SDKs: mapping, units, errors, rate limit, retries."""

from __future__ import annotations

import time
from bisect import bisect_left
from datetime import UTC, date, datetime
from typing import Any

import pandas as pd
import pytest

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.application.use_cases import (
    GetDailyBarsUseCase,
    GetFinanceForTickerUseCase,
    GetIntradayBarsUseCase,
    GetNewsUseCase,
    GetStockBasicInfoUseCase,
    GetValuationDailiesForTickerUseCase,
)
from stockdesk.data_engineering.domain.exceptions import IntradayWindowError, ProviderUnavailableError
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.data_engineering.infrastructure.providers.akshare_provider import (
    AkShareProvider,
    news_to_frame,
    statutory_ann_date,
)
from stockdesk.data_engineering.infrastructure.providers.rate_limit import TokenBucket
from stockdesk.data_engineering.infrastructure.providers.resilience import (
    CallPolicy,
    ProviderCaller,
    run_with_timeout,
)
from stockdesk.data_engineering.infrastructure.providers.sec_provider import SecEdgarProvider
from stockdesk.data_engineering.infrastructure.providers.tushare_provider import TushareProvider
from stockdesk.data_engineering.infrastructure.providers.yfinance_provider import (
    YFinanceProvider,
    news_items_to_frame,
    yahoo_code,
)
from stockdesk.shared.db import Database
from stockdesk.shared.errors import ConfigurationError
from tests.data_engineering.provider_fakes import (
    FAST,
    FIXTURES,
    FixtureAkShare,
    FixtureTushareClient,
    FixtureYFinance,
    SecFixtureServer,
    fast_limiter,
    no_sleep,
)

AS_OF = date(2024, 12, 31)
JAN = (date(2024, 1, 1), date(2024, 1, 31))


@pytest.fixture
def repository(database: Database) -> SqlMarketDataRepository:
    return SqlMarketDataRepository(database)


def store(repository: SqlMarketDataRepository, **frames: pd.DataFrame) -> None:
    MarketDataImportService(repository).import_frames("test", frames)


def akshare(sdk: FixtureAkShare | None = None) -> AkShareProvider:
    return AkShareProvider(sdk or FixtureAkShare(), policy=FAST, limiter=fast_limiter(), sleep=no_sleep)


def tushare(
    client: FixtureTushareClient | None = None, limiter: TokenBucket | None = None
) -> TushareProvider:
    client = client or FixtureTushareClient()
    return TushareProvider(client, policy=FAST, limiter=limiter or fast_limiter(), sleep=no_sleep)


def sec(server: SecFixtureServer) -> SecEdgarProvider:
    return SecEdgarProvider(
        "stockdesk tests tests@example.com",
        transport=server.transport,
        policy=FAST,
        limiter=fast_limiter(),
        sleep=no_sleep,
    )


# ---- AkShare ------------------------------------------------------------------------------------
def test_akshare_bars_convert_lots_and_derive_adj_factor_from_hfq(
    repository: SqlMarketDataRepository,
) -> None:
    sdk = FixtureAkShare()
    bars = akshare(sdk).bars("600001.SH", *JAN)
    store(repository, bars=bars)
    stored = GetDailyBarsUseCase(repository).execute("600001.SH", as_of=AS_OF)
    assert [b.trade_date for b in stored] == [date(2024, 1, d) for d in (2, 3, 4, 5, 8)]
    first = stored[0]
    assert first.volume == pytest.approx(12000 * 100)  # 成交量 lots -> shares
    assert first.amount == pytest.approx(12_240_000.0)  # 成交额 already CNY
    assert first.pre_close == pytest.approx(10.20 - 0.20)  # 收盘 - 涨跌额
    assert first.pct_chg == pytest.approx(2.0)
    assert [round(b.adj_factor, 6) for b in stored] == [1.5, 1.5, 1.5, 1.6, 1.6]  # hfq close / close
    assert [c[1]["adjust"] for c in sdk.calls] == ["", "hfq"]
    assert sdk.calls[0][1]["start_date"] == "20240101" and sdk.calls[0][1]["symbol"] == "600001"


def test_akshare_security_from_individual_info(repository: SqlMarketDataRepository) -> None:
    store(repository, securities=akshare().security("600001.SH"))
    security = GetStockBasicInfoUseCase(repository).require("600001.SH")
    assert (security.name, security.industry, security.list_date) == ("示例银行", "银行", date(1999, 1, 1))
    assert (security.market, security.exchange, security.currency) == ("CN", "SH", "CNY")
    assert security.provider_codes == {"akshare": "600001"}


def test_akshare_valuations_are_cut_to_the_window_in_cny(repository: SqlMarketDataRepository) -> None:
    store(repository, valuations=akshare().valuations("600001.SH", date(2024, 1, 2), date(2024, 1, 5)))
    stored = GetValuationDailiesForTickerUseCase(repository).execute("600001.SH", as_of=AS_OF)
    assert [v.trade_date for v in stored] == [
        date(2024, 1, d) for d in (2, 3, 4, 5)
    ]  # 2023-12-29 and 01-08 out
    last = stored[-1]
    assert last.total_mv == pytest.approx(9_900_000_000.0) and last.circ_mv == pytest.approx(8_910_000_000.0)
    assert (last.pe_ttm, last.pe, last.pb, last.ps_ttm) == (8.12, 8.41, 0.94, 2.08)
    assert not last.is_derived


def test_akshare_financials_use_statutory_deadlines_as_announcement(
    repository: SqlMarketDataRepository,
) -> None:
    store(repository, financials=akshare().financials("600001.SH"))
    finance = GetFinanceForTickerUseCase(repository)
    reports = finance.execute("600001.SH", as_of=AS_OF)
    assert [(r.end_date, r.ann_date, r.report_type) for r in reports] == [
        (date(2023, 12, 31), date(2024, 4, 30), "A"),
        (date(2023, 9, 30), date(2023, 10, 31), "Q3"),
        (date(2023, 3, 31), date(2023, 4, 30), "Q1"),
    ]
    annual = reports[0]
    assert (annual.eps, annual.bps, annual.roe, annual.roe_waa) == (1.20, 10.95, 11.10, 11.35)
    assert annual.netprofit_margin == 31.2 and annual.debt_to_assets == 91.5
    assert annual.profit_dedt == pytest.approx(1_170_000_000.0)
    assert annual.extra["ann_date_estimated"] is True and annual.extra["摊薄每股收益(元)"] == 1.22
    # point in time: before the annual deadline only the Q3 report is visible
    assert finance.execute("600001.SH", as_of=date(2024, 4, 29))[0].end_date == date(2023, 9, 30)


def test_statutory_ann_date_per_period_end() -> None:
    ends = pd.Series(pd.to_datetime(["2023-03-31", "2023-06-30", "2023-09-30", "2023-12-31", "2023-05-31"]))
    got = statutory_ann_date(ends).dt.strftime("%Y-%m-%d").tolist()
    assert got == ["2023-04-30", "2023-08-31", "2023-10-31", "2024-04-30", "2023-09-28"]


# ---- Tushare ------------------------------------------------------------------------------------
def test_tushare_provider_reuses_csv_converters_units(repository: SqlMarketDataRepository) -> None:
    provider = tushare()
    store(
        repository,
        securities=provider.security("600001.SH"),
        bars=provider.bars("600001.SH", *JAN),
        valuations=provider.valuations("600001.SH", *JAN),
        financials=provider.financials("600001.SH"),
    )
    bars = GetDailyBarsUseCase(repository).execute("600001.SH", as_of=AS_OF)
    assert bars[-1].trade_date == date(2024, 1, 8)
    assert bars[-1].volume == pytest.approx(110.0 * 100) and bars[-1].amount == pytest.approx(109.8 * 1000)
    assert [b.adj_factor for b in bars] == [1.5, 1.5, 1.5, 1.6, 1.6]
    valuation = GetValuationDailiesForTickerUseCase(repository).execute("600001.SH", as_of=AS_OF)[-1]
    assert valuation.total_mv == pytest.approx(1_000_000.0 * 10_000) and valuation.ps_ttm == 2.1
    reports = GetFinanceForTickerUseCase(repository).execute("600001.SH", as_of=AS_OF)
    assert [r.end_date for r in reports] == [date(2023, 12, 31), date(2023, 9, 30)]  # revisions collapsed
    assert reports[0].extra["q_roe"] == 2.5  # the updated revision (update_flag=1) wins
    assert GetStockBasicInfoUseCase(repository).require("600001.SH").name == "示例银行"


def test_tushare_without_token_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TUSHARE_TOKEN", raising=False)
    with pytest.raises(ConfigurationError) as caught:
        TushareProvider()
    assert "TUSHARE_TOKEN" in caught.value.message and "\n" not in caught.value.message


def test_tushare_calls_share_a_200_per_minute_bucket() -> None:
    clock = FakeClock()
    limiter = TokenBucket.per_minute(200, clock=clock.now, sleep=clock.sleep)
    client = FixtureTushareClient()
    provider = tushare(client, limiter)
    for _ in range(3):  # 2 calls each (daily + adj_factor)
        provider.bars("600001.SH", *JAN)
    assert len(client.calls) == 6
    assert len(clock.sleeps) == 5  # every call after the first waited for a token
    assert clock.t == pytest.approx(5 * 60 / 200)


def test_akshare_5_minute_bars_are_stored_by_their_start_in_utc_with_volume_in_shares(
    repository: SqlMarketDataRepository,
) -> None:
    """`stock_zh_a_hist_min_em(symbol, start_date, end_date, period="5", adjust="")` as akshare 1.19.5
    builds it (akshare/stock_feature/stock_hist_em.py, kline branch): 时间 (text, Beijing time, the bar's
    END), 开盘, 收盘, 最高, 最低, 涨跌幅, 涨跌额, 成交量 (lots of 100), 成交额 (CNY), 振幅, 换手率."""
    sdk = FixtureAkShare()
    frame = akshare(sdk).bars_5m("600001.SH", date(2024, 12, 30), date(2024, 12, 31))
    [(name, params)] = sdk.calls
    assert name == "stock_zh_a_hist_min_em"
    assert params == {
        "symbol": "600001", "start_date": "2024-12-30 09:00:00", "end_date": "2024-12-31 15:30:00",
        "period": "5", "adjust": "",
    }  # fmt: skip
    store(repository, bars_5m=frame)
    bars = GetIntradayBarsUseCase(repository).execute("600001.SH", as_of=AS_OF)
    assert len(bars) == 16 and {b.trade_date for b in bars} == {date(2024, 12, 30), AS_OF}
    first, last = bars[0], bars[-1]
    assert first.ts.isoformat() == "2024-12-30T09:30:00+08:00"  # labelled 09:35, the bar's end
    assert first.ts_utc == datetime(2024, 12, 30, 1, 30, tzinfo=UTC)
    assert last.ts.strftime("%H:%M") == "14:55"  # labelled 15:00
    raw = pd.read_csv(FIXTURES / "akshare" / "stock_zh_a_hist_min_em_600001.csv")
    row = raw[raw["时间"] == "2024-12-30 09:35:00"].iloc[0]
    assert (first.open, first.close, first.high, first.low) == (
        row["开盘"],
        row["收盘"],
        row["最高"],
        row["最低"],
    )
    assert first.volume == row["成交量"] * 100 and first.amount == row["成交额"]
    assert [b.ts.strftime("%H:%M") for b in bars[:8]] == [
        "09:30", "09:35", "09:40", "09:45", "11:25", "13:00", "13:05", "14:55"
    ]  # fmt: skip


def test_akshare_5_minute_bars_of_an_old_window_are_empty_and_a_changed_sdk_fails_loudly() -> None:
    assert akshare().bars_5m("600001.SH", date(2023, 1, 1), date(2023, 1, 31)).empty

    class Renamed(FixtureAkShare):
        def stock_zh_a_hist_min_em(self, **params: Any) -> pd.DataFrame:
            return super().stock_zh_a_hist_min_em(**params).rename(columns={"成交量": "volume"})

    with pytest.raises(ProviderUnavailableError, match=r"response lacks column\(s\) 成交量"):
        akshare(Renamed()).bars_5m("600001.SH", date(2024, 12, 30), date(2024, 12, 31))


# ---- yfinance -----------------------------------------------------------------------------------
def test_yfinance_5_minute_bars_of_the_regular_session_by_their_start(
    repository: SqlMarketDataRepository,
) -> None:
    """`Ticker(code).history(interval="5m", start, end, prepost=False, auto_adjust=False,
    actions=False)` as yfinance 1.7.0 returns it (yfinance/scrapers/history.py: the index is named
    `Datetime` for intraday intervals and carries the exchange's zone; columns Open, High, Low, Close,
    Adj Close, Volume in shares)."""
    sdk = FixtureYFinance()
    provider = YFinanceProvider(sdk, policy=FAST, limiter=fast_limiter(), sleep=no_sleep, today=lambda: AS_OF)
    frame = provider.bars_5m("EXMP", date(2024, 12, 30), AS_OF)
    [(name, code, params)] = sdk.calls
    assert (name, code, params["interval"], params["start"], params["end"]) == (
        "history", "EXMP", "5m", "2024-12-30", "2025-01-01",
    )  # fmt: skip  # yfinance's end is exclusive
    assert (params["prepost"], params["auto_adjust"], params["actions"]) == (False, False, False)
    store(repository, bars_5m=frame)
    bars = GetIntradayBarsUseCase(repository).execute("EXMP", as_of=AS_OF)
    assert len(bars) == 10 and bars[0].ts.isoformat() == "2024-12-30T09:30:00-05:00"
    assert bars[0].ts_utc == datetime(2024, 12, 30, 14, 30, tzinfo=UTC)
    assert [b.ts.strftime("%H:%M") for b in bars[:5]] == ["09:30", "09:35", "09:40", "15:50", "15:55"]
    assert all(b.amount is None for b in bars)  # Yahoo gives none
    raw = pd.read_csv(FIXTURES / "yfinance" / "history_5m_EXMP.csv")
    row = raw[raw["Datetime"] == "2024-12-30 09:30:00-05:00"].iloc[0]
    assert (bars[0].open, bars[0].high, bars[0].low, bars[0].close) == (
        row["Open"], row["High"], row["Low"], row["Close"],
    )  # fmt: skip
    assert bars[0].volume == row["Volume"]


def test_yfinance_refuses_5_minute_bars_older_than_its_60_days_in_one_line() -> None:
    sdk = FixtureYFinance()
    provider = YFinanceProvider(sdk, policy=FAST, limiter=fast_limiter(), sleep=no_sleep, today=lambda: AS_OF)
    with pytest.raises(IntradayWindowError) as info:
        provider.bars_5m("EXMP", date(2024, 11, 1), AS_OF)
    assert info.value.message == (
        "yfinance keeps 5-minute bars for the last 60 days only: EXMP from 2024-11-01 is older; "
        "start on 2024-11-02 or later"
    )
    assert info.value.code == "INTRADAY_WINDOW" and sdk.calls == []  # refused before asking Yahoo
    assert len(provider.bars_5m("EXMP", date(2024, 11, 2), AS_OF)) == 15  # the first day it serves


def test_yfinance_bars_dividend_factor_and_window(repository: SqlMarketDataRepository) -> None:
    sdk = FixtureYFinance()
    provider = YFinanceProvider(sdk, policy=FAST, limiter=fast_limiter(), sleep=no_sleep)
    bars = provider.bars("EXMP", date(2023, 11, 7), date(2024, 2, 12))
    assert sdk.calls[0][2]["auto_adjust"] is False and sdk.calls[0][2]["actions"] is True
    assert sdk.calls[0][2]["period"] == "max"  # whole history, so the factor is anchored at its first day
    assert bars["trade_date"].dt.strftime("%Y-%m-%d").tolist()[0] == "2023-11-07"  # 11-06 cut, tz dropped
    assert bars["cash_dividend"].dropna().tolist() == [0.24]
    store(repository, bars=bars.drop(columns="cash_dividend"))
    stored = GetDailyBarsUseCase(repository).execute("EXMP", as_of=AS_OF)
    assert stored[0].pre_close == 179.20  # from the day before the window
    assert stored[0].volume == 70_500_000 and stored[0].amount is None
    before, on = stored[-3], stored[-2]  # 2024-02-08, 2024-02-09 (ex-date)
    assert before.adj_factor == pytest.approx(1.0)
    assert on.adj_factor == pytest.approx(1 / (1 - 0.24 / 188.00), rel=1e-6)


def test_yfinance_security_and_empty_info_is_a_failure() -> None:
    provider = YFinanceProvider(FixtureYFinance(), policy=FAST, limiter=fast_limiter(), sleep=no_sleep)
    row = provider.security("EXMP").iloc[0]
    assert (row["name"], row["industry"], row["exchange"], row["currency"]) == (
        "Example Corporation", "Consumer Electronics", "NMS", "USD",
    )  # fmt: skip
    assert row["list_date"] == "1980-12-12"
    offline = YFinanceProvider(
        FixtureYFinance(down=True), policy=FAST, limiter=fast_limiter(), sleep=no_sleep
    )
    with pytest.raises(ProviderUnavailableError, match="empty answer"):
        offline.security("EXMP")


def test_yahoo_codes() -> None:
    assert [yahoo_code(s) for s in ("AAPL", "BRK.B", "00700.HK", "2330.TW")] == [
        "AAPL", "BRK-B", "0700.HK", "2330.TW",
    ]  # fmt: skip


# ---- SEC ----------------------------------------------------------------------------------------
def test_sec_without_user_agent_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEC_USER_AGENT", raising=False)
    with pytest.raises(ConfigurationError) as caught:
        SecEdgarProvider()
    assert "SEC_USER_AGENT" in caught.value.message and "\n" not in caught.value.message


def test_sec_fetches_with_user_agent_and_converts(repository: SqlMarketDataRepository) -> None:
    server = SecFixtureServer()
    provider = sec(server)
    store(repository, securities=provider.security("EXMP"), financials=provider.financials("EXMP"))
    paths = [r.url.path for r in server.requests]
    assert paths == [
        "/files/company_tickers.json",  # once: the CIK map is kept
        "/submissions/CIK0000000123.json",
        "/api/xbrl/companyfacts/CIK0000000123.json",
    ]
    assert {r.headers["User-Agent"] for r in server.requests} == {"stockdesk tests tests@example.com"}
    security = GetStockBasicInfoUseCase(repository).require("EXMP")
    assert (security.name, security.industry, security.exchange) == (
        "Example Corporation", "Electronic Computers", "Nasdaq",
    )  # fmt: skip
    reports = GetFinanceForTickerUseCase(repository).execute("EXMP", as_of=AS_OF)
    assert [(r.end_date, r.ann_date) for r in reports] == [
        (date(2023, 12, 30), date(2024, 2, 2)),
        (date(2023, 9, 30), date(2023, 11, 3)),
    ]
    assert reports[1].revenue == pytest.approx(380e9) and reports[1].eps == 6.10
    assert provider.bars("EXMP", *JAN).empty and provider.valuations("EXMP", *JAN).empty


def test_sec_unknown_ticker_and_http_errors_are_one_line_failures() -> None:
    provider = sec(SecFixtureServer())
    with pytest.raises(ProviderUnavailableError, match="no CIK for ticker NOPE"):
        provider.security("NOPE")
    with pytest.raises(ProviderUnavailableError, match="404"):
        provider.financials("OTHR")  # known ticker, no companyfacts file: HTTP 404, not retried


# ---- rate limiter, retries, timeout -------------------------------------------------------------
class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds


def test_token_bucket_allows_at_most_rate_per_window() -> None:
    clock = FakeClock()
    bucket = TokenBucket.per_minute(200, clock=clock.now, sleep=clock.sleep)
    grants = []
    for _ in range(450):
        bucket.acquire()
        grants.append(clock.t)
    in_any_minute = max(bisect_left(grants, t + 60.0 - 1e-6) - i for i, t in enumerate(grants))
    assert in_any_minute == 200
    assert len(clock.sleeps) == 449 and all(s == pytest.approx(0.3) for s in clock.sleeps)


def test_token_bucket_burst_up_to_capacity() -> None:
    clock = FakeClock()
    bucket = TokenBucket(10.0, capacity=3, clock=clock.now, sleep=clock.sleep)
    for _ in range(3):
        bucket.acquire()
    assert clock.sleeps == []
    bucket.acquire()
    assert clock.sleeps == [pytest.approx(0.1)]


def test_transient_errors_are_retried_with_exponential_backoff() -> None:
    pauses: list[float] = []
    caller = ProviderCaller(
        "demo", fast_limiter(), CallPolicy(timeout=5.0, attempts=4, backoff=0.5, max_backoff=10.0),
        sleep=pauses.append,
    )  # fmt: skip
    answers = iter([ConnectionError("reset"), TimeoutError("slow"), "ok"])

    def flaky() -> str:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert caller("flaky", flaky) == "ok"
    assert caller.calls == 3 and pauses == [0.5, 1.0]


def test_other_errors_fail_at_once_with_a_one_line_reason() -> None:
    caller = ProviderCaller("demo", fast_limiter(), CallPolicy(attempts=3), sleep=no_sleep)

    def broken() -> None:
        raise KeyError("日期")

    with pytest.raises(ProviderUnavailableError) as caught:
        caller("endpoint", broken)
    assert caller.calls == 1
    assert caught.value.message == "demo endpoint: KeyError: '日期'"


def test_persistent_network_errors_give_up_after_the_attempts() -> None:
    caller = ProviderCaller("demo", fast_limiter(), CallPolicy(attempts=3, backoff=0.0), sleep=no_sleep)

    def down() -> None:
        raise ConnectionError("Name or service not known")

    with pytest.raises(ProviderUnavailableError, match="ConnectionError: Name or service not known"):
        caller("endpoint", down)
    assert caller.calls == 3


def test_a_hanging_call_times_out() -> None:
    with pytest.raises(TimeoutError, match=r"within 0\.05 s"):
        run_with_timeout(time.sleep, 0.05, 2.0)
    assert run_with_timeout(lambda x, timeout: x + timeout, 1.0, 1, timeout=2) == 3  # SDK kwargs pass through


# ---- news ---------------------------------------------------------------------------------------
def test_akshare_news_beijing_times_become_utc(repository: SqlMarketDataRepository) -> None:
    sdk = FixtureAkShare()
    news = akshare(sdk).news("600001.SH", *JAN)
    assert sdk.calls == [("stock_news_em", {"symbol": "600001"})]
    store(repository, news=news)
    stored = GetNewsUseCase(repository).execute("600001.SH", as_of=AS_OF)
    assert [(n.published_at, n.source) for n in stored] == [
        (datetime(2024, 1, 30, 23, 30), "东方财富网"),  # 01-31 07:30 in Beijing: still in the window
        (datetime(2024, 1, 30, 12, 15), "证券时报网"),
        (datetime(2024, 1, 10, 8, 0), "上海证券报"),
    ]  # 02-05 is after the window
    first = stored[1]
    assert first.title == "示例银行：2023年净利润同比增长5.2%"
    assert first.summary.startswith("示例银行(600001)1月30日晚间披露业绩快报") and first.body is None
    assert first.url == "http://finance.eastmoney.com/a/202401303000000001.html"


def test_akshare_news_with_a_changed_time_format_fails_loudly() -> None:
    raw = pd.read_csv(FixtureAkShare().folder / "stock_news_em_600001.csv", dtype=str)
    raw.loc[1, "发布时间"] = "01/31/2024 07:30"
    with pytest.raises(ProviderUnavailableError, match="发布时间 '01/31/2024 07:30'"):
        news_to_frame(raw, "600001.SH", *JAN)
    with pytest.raises(ProviderUnavailableError, match="新闻链接"):
        news_to_frame(raw.drop(columns="新闻链接"), "600001.SH", *JAN)


def test_yfinance_news_nested_content_items(repository: SqlMarketDataRepository) -> None:
    sdk = FixtureYFinance()
    provider = YFinanceProvider(sdk, policy=FAST, limiter=fast_limiter(), sleep=no_sleep)
    news = provider.news("EXMP", date(2023, 12, 1), date(2024, 2, 29))
    assert sdk.calls == [("get_news", "EXMP", {"count": 20, "tab": "news"})]
    store(repository, news=news)
    stored = GetNewsUseCase(repository).execute("EXMP", as_of=AS_OF)
    assert [(n.published_at, n.source) for n in stored] == [
        (datetime(2024, 2, 1, 2, 30), "Example Times"),
        (datetime(2024, 1, 31, 21, 5), "Example Wire"),
        (datetime(2023, 12, 29, 15, 0), "Example Video"),
    ]
    plant, beat, video = stored
    assert (
        plant.url == "https://www.exampletimes.com/business/example-corporation-second-plant"
    )  # canonicalUrl
    assert beat.title == "Example Corporation beats first-quarter estimates"
    assert beat.summary.startswith("Example Corporation reported revenue of $2.1 billion")
    assert video.summary is None and video.body is None
    january = provider.news("EXMP", *JAN)
    assert january["title"].tolist() == ["Example Corporation beats first-quarter estimates"]  # UTC days


def test_yfinance_news_in_an_unknown_shape_fails_loudly() -> None:
    flat = [{"uuid": "x", "title": "Old shape", "link": "https://example.com/x", "providerPublishTime": 1}]
    with pytest.raises(ProviderUnavailableError, match="no item has a `content` object"):
        news_items_to_frame(flat, "EXMP", *JAN)
    offline = YFinanceProvider(
        FixtureYFinance(down=True), policy=FAST, limiter=fast_limiter(), sleep=no_sleep
    )
    with pytest.raises(ProviderUnavailableError, match=r"yfinance Ticker\.get_news: ConnectionError"):
        offline.news("EXMP", *JAN)


# ---- fetch-news: the providers behind `stockdesk data fetch-news` ---------------------------------
def test_fetch_news_stores_the_first_answering_provider(repository: SqlMarketDataRepository) -> None:
    from stockdesk.data_engineering.application.news_fetch import FetchNewsService

    service = FetchNewsService({"CN": [akshare()]}, MarketDataImportService(repository))
    first = service.fetch("600001.SH", days=31, today=date(2024, 1, 31))
    again = service.fetch("600001.SH", days=31, today=date(2024, 1, 31))
    assert first.provider == "akshare" and first.fetched > 0 and first.new == first.fetched
    assert again.new == 0  # a rerun changes nothing
    assert len(repository.get_news("600001.SH", date(2024, 1, 31))) == first.fetched
    hits = repository.search_text("北向资金", symbol="600001.SH", start=None, end=date(2024, 1, 31), limit=5)
    assert [h.title for h in hits] == ["示例银行获北向资金增持"]  # and the local search index has it


def test_fetch_news_reports_every_failing_provider_in_one_line(repository: SqlMarketDataRepository) -> None:
    from stockdesk.data_engineering.application.news_fetch import FetchNewsService
    from stockdesk.shared.errors import BadRequestException

    service = FetchNewsService(
        {"CN": [akshare(FixtureAkShare(down=True))]}, MarketDataImportService(repository)
    )
    with pytest.raises(ProviderUnavailableError, match=r"no news for 600001\.SH: akshare: ") as caught:
        service.fetch("600001.SH", today=date(2024, 1, 31))
    assert "\n" not in caught.value.message
    with pytest.raises(BadRequestException, match="no news provider serves the US market"):
        service.fetch("AAPL")
    with pytest.raises(BadRequestException, match="--days"):
        service.fetch("600001.SH", days=400)
