"""`data sync`: provider fallback, recorded failures, resume, idempotence, derived valuations, CLI."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from stockdesk.data_engineering.application.sync_service import SyncService, SyncSummary
from stockdesk.data_engineering.application.use_cases import (
    GetDailyBarsUseCase,
    GetStockBasicInfoUseCase,
    GetValuationDailiesForTickerUseCase,
)
from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.data_engineering.domain.ports import IMarketDataProvider
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.data_engineering.infrastructure.persistence.sync_state import SqlSyncStateRepository
from stockdesk.data_engineering.infrastructure.providers.akshare_provider import AkShareProvider
from stockdesk.data_engineering.infrastructure.providers.sec_provider import SecEdgarProvider
from stockdesk.data_engineering.infrastructure.providers.tushare_provider import TushareProvider
from stockdesk.data_engineering.infrastructure.providers.yfinance_provider import YFinanceProvider
from stockdesk.data_engineering.presentation.cli import build_data_cli
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.errors import BadRequestException, ConfigurationError
from tests.data_engineering.provider_fakes import (
    FAST,
    FixtureAkShare,
    FixtureTushareClient,
    FixtureYFinance,
    SecFixtureServer,
    fast_limiter,
    no_sleep,
)

TODAY = date(2024, 12, 31)
AS_OF = date(2024, 12, 31)
START, END = date(2024, 1, 1), date(2024, 1, 31)


def akshare(sdk: FixtureAkShare) -> AkShareProvider:
    return AkShareProvider(sdk, policy=FAST, limiter=fast_limiter(), sleep=no_sleep)


def tushare(client: FixtureTushareClient) -> TushareProvider:
    return TushareProvider(client, policy=FAST, limiter=fast_limiter(), sleep=no_sleep)


def yfinance(sdk: FixtureYFinance) -> YFinanceProvider:
    return YFinanceProvider(sdk, policy=FAST, limiter=fast_limiter(), sleep=no_sleep, today=lambda: TODAY)


def sec(server: SecFixtureServer) -> SecEdgarProvider:
    agent = "stockdesk tests tests@example.com"
    return SecEdgarProvider(
        agent, transport=server.transport, policy=FAST, limiter=fast_limiter(), sleep=no_sleep
    )


class Desk:
    """A sync service over the real SQLite store (state optionally in another database)."""

    def __init__(self, database: Database, providers: dict[str, list[IMarketDataProvider]], state_db=None):
        self.repository = SqlMarketDataRepository(database)
        self.state = SqlSyncStateRepository(state_db or database)
        self.service = SyncService(providers, self.repository, self.state, today=lambda: TODAY)

    def sync(
        self,
        symbols: list[str],
        start: date = START,
        end: date = END,
        run: str = "run-1",
        datasets: list[str] | None = None,
    ) -> SyncSummary:
        market = "US" if symbols[0].isalpha() else "CN"
        return self.service.sync(market, symbols, start, end, run, datasets=datasets)


def outcome(summary: SyncSummary, symbol: str, dataset: str):  # type: ignore[no-untyped-def]
    return next(o for o in summary.outcomes if o.symbol == symbol and o.dataset == dataset)


def test_falls_back_to_the_second_provider_when_the_first_raises(database: Database) -> None:
    down, client = FixtureAkShare(down=True), FixtureTushareClient()
    desk = Desk(database, {"CN": [akshare(down), tushare(client)]})
    summary = desk.sync(["600001.SH"])
    assert {(o.dataset, o.status, o.provider) for o in summary.outcomes} == {
        ("security", "written", "tushare"),
        ("bars", "written", "tushare"),
        ("valuations", "written", "tushare"),
        ("financials", "written", "tushare"),
    }
    assert len(down.calls) == 8  # 4 datasets x 2 attempts: a dead host is a transient error
    failures = desk.state.failures("run-1")
    assert [(f["provider"], f["dataset"]) for f in failures] == [
        ("akshare", "security"), ("akshare", "bars"), ("akshare", "valuations"), ("akshare", "financials"),
    ]  # fmt: skip
    assert all("ConnectionError" in f["reason"] and "Failed to resolve" in f["reason"] for f in failures)
    bars = GetDailyBarsUseCase(desk.repository).execute("600001.SH", as_of=AS_OF)
    assert len(bars) == 5 and bars[-1].volume == pytest.approx(110.0 * 100)
    assert summary.symbol_status == {"600001.SH": "ok"} and not summary.all_failed


def test_rejected_answer_is_recorded_and_the_next_provider_used(database: Database) -> None:
    desk = Desk(database, {"CN": [akshare(FixtureAkShare(bad_close=True)), tushare(FixtureTushareClient())]})
    summary = desk.sync(["600001.SH"])
    assert outcome(summary, "600001.SH", "bars").provider == "tushare"
    assert outcome(summary, "600001.SH", "security").provider == "akshare"
    [failure] = desk.state.failures("run-1")
    assert failure["dataset"] == "bars" and "price must be positive" in failure["reason"]
    assert GetDailyBarsUseCase(desk.repository).execute("600001.SH", as_of=AS_OF)[0].close == 10.2


def test_a_failing_symbol_is_recorded_and_the_sync_goes_on(database: Database) -> None:
    sdk = FixtureAkShare(unreachable=("600009",))
    desk = Desk(database, {"CN": [akshare(sdk)]})
    summary = desk.sync(["600009.SH", "600001.SH"])
    assert summary.symbol_status == {"600009.SH": "failed", "600001.SH": "ok"}
    assert not summary.all_failed
    failures = desk.state.failures("run-1")
    assert {(f["symbol"], f["provider"]) for f in failures} == {("600009.SH", "akshare")}
    assert sorted(f["dataset"] for f in failures) == ["bars", "financials", "security", "valuations"]
    assert [f.model_dump() for f in summary.failures] == [
        {k: f[k] for k in ("provider", "symbol", "dataset", "reason")} for f in failures
    ]
    assert GetStockBasicInfoUseCase(desk.repository).execute("600001.SH") is not None
    assert desk.state.done_through("600009.SH", "bars") is None  # failed: retried next run


def test_rerun_skips_done_datasets_and_fetches_bars_after_done_through(database: Database) -> None:
    sdk = FixtureAkShare()
    desk = Desk(database, {"CN": [akshare(sdk)]})
    first = desk.sync(["600001.SH"], end=date(2024, 1, 4))
    assert {o.status for o in first.outcomes} == {"written"}
    calls = len(sdk.calls)

    again = desk.sync(["600001.SH"], end=date(2024, 1, 4), run="run-2")
    assert {o.status for o in again.outcomes} == {"up-to-date"}
    assert len(sdk.calls) == calls  # nothing fetched
    assert again.symbol_status == {"600001.SH": "up-to-date"}

    later = desk.sync(["600001.SH"], end=date(2024, 1, 8), run="run-3")
    new_calls = sdk.calls[calls:]
    hist = [params for name, params in new_calls if name == "stock_zh_a_hist"]
    assert {p["start_date"] for p in hist} == {"20240105"}  # the day after done_through
    assert outcome(later, "600001.SH", "bars").fetched_from == date(2024, 1, 5)
    assert outcome(later, "600001.SH", "bars").rows == 2
    assert desk.state.done_through("600001.SH", "bars") == date(2024, 1, 8)
    bars = GetDailyBarsUseCase(desk.repository).execute("600001.SH", as_of=AS_OF)
    assert [b.trade_date.day for b in bars] == [2, 3, 4, 5, 8]


def test_failed_datasets_are_fetched_again_on_the_next_run(database: Database) -> None:
    sdk = FixtureAkShare(down=True)
    desk = Desk(database, {"CN": [akshare(sdk)]})
    assert desk.sync(["600001.SH"]).all_failed
    sdk.down = False
    summary = desk.sync(["600001.SH"], run="run-2")
    assert {o.status for o in summary.outcomes} == {"written"}
    assert desk.state.failures("run-2") == [] and len(desk.state.failures()) == 4


def test_reruns_write_no_extra_rows(database: Database, tmp_path: Path) -> None:
    providers = {"CN": [akshare(FixtureAkShare())]}
    desk = Desk(database, providers)
    desk.sync(["600001.SH"])
    counts = desk.repository.counts()
    assert (counts["bars"], counts["valuations"], counts["financials"], counts["securities"]) == (5, 5, 3, 1)
    fresh_state = Database(f"sqlite:///{tmp_path / 'other-state.db'}")
    try:  # no sync state: everything is fetched and written again, upserting the same keys
        again = Desk(database, providers, state_db=fresh_state).sync(["600001.SH"], run="run-2")
    finally:
        fresh_state.dispose()
    assert {o.status for o in again.outcomes} == {"written"}
    assert desk.repository.counts() == counts


def us_desk(database: Database) -> Desk:
    return Desk(database, {"US": [yfinance(FixtureYFinance()), sec(SecFixtureServer())]})


def test_us_sync_derives_valuations_from_prices_and_sec_reports(database: Database) -> None:
    desk = us_desk(database)
    summary = desk.sync(["EXMP"], start=date(2023, 11, 1), end=date(2024, 2, 8))  # before the dividend
    assert {(o.dataset, o.status, o.provider) for o in summary.outcomes} == {
        ("security", "written", "yfinance"),
        ("bars", "written", "yfinance"),
        ("valuations", "empty", None),  # neither source reports valuations
        ("financials", "written", "sec"),
    }
    assert summary.failures == [] and summary.derived_valuations == 5
    last = GetValuationDailiesForTickerUseCase(desk.repository).execute("EXMP", as_of=AS_OF)[-1]
    assert last.is_derived and last.trade_date == date(2024, 2, 8)
    assert last.pb == pytest.approx(188.00 / (74e9 / 15.5e9))  # Q1 report filed 2024-02-02
    assert last.total_mv == pytest.approx(188.00 * 15.5e9)
    assert GetStockBasicInfoUseCase(desk.repository).require("EXMP").name == "Example Corporation"


def test_us_sync_stores_the_cash_dividends_of_the_bars(database: Database) -> None:
    desk = us_desk(database)
    summary = desk.sync(["EXMP"], start=date(2023, 11, 1), end=date(2024, 2, 12))
    assert outcome(summary, "EXMP", "bars").rows == 7
    dividends = desk.repository.dividends_frame(["EXMP"])
    assert dividends["cash_per_share"].tolist() == [0.24]
    assert str(dividends["ex_date"].iloc[0]) == "2024-02-09"
    assert {f.provider for f in summary.failures} <= {"derived"}  # a refresh error is recorded, not raised


def test_us_sync_derives_dividend_yield(database: Database) -> None:
    desk = us_desk(database)
    summary = desk.sync(["EXMP"], start=date(2023, 11, 1), end=date(2024, 2, 12))
    assert summary.failures == [] and summary.derived_valuations == 7
    last = GetValuationDailiesForTickerUseCase(desk.repository).execute("EXMP", as_of=AS_OF)[-1]
    assert last.dv_ttm == pytest.approx(0.24 / 187.20 * 100)


# ---- 5-minute bars ------------------------------------------------------------------------------
def test_a_share_5_minute_bars_are_synced_when_asked_and_today_is_fetched_again(database: Database) -> None:
    sdk = FixtureAkShare()
    desk = Desk(database, {"CN": [akshare(sdk)]})
    default = desk.sync(["600001.SH"], start=date(2024, 12, 27), end=TODAY)
    assert "bars_5m" not in {o.dataset for o in default.outcomes}  # only when asked
    assert "stock_zh_a_hist_min_em" not in {name for name, _ in sdk.calls}

    first = desk.sync(["600001.SH"], start=date(2024, 12, 27), end=TODAY, run="run-2", datasets=["bars_5m"])
    assert [(o.dataset, o.status, o.provider, o.rows) for o in first.outcomes] == [
        ("bars_5m", "written", "akshare", 24)
    ]
    assert first.derived_valuations == 0 and first.failures == []
    assert desk.repository.count_intraday_bars("600001.SH") == 24
    # TODAY's session may still be running: done through the day before, so the next run asks for TODAY again
    assert desk.state.done_through("600001.SH", "bars_5m") == date(2024, 12, 30)
    again = desk.sync(["600001.SH"], start=date(2024, 12, 27), end=TODAY, run="run-3", datasets=["bars_5m"])
    [(_name, params)] = [c for c in sdk.calls if c[0] == "stock_zh_a_hist_min_em"][-1:]
    assert params["start_date"] == "2024-12-31 09:00:00"
    assert (outcome(again, "600001.SH", "bars_5m").rows, desk.repository.count_intraday_bars()) == (0, 24)
    past = desk.sync(["600001.SH"], start=date(2024, 12, 27), end=date(2024, 12, 30), run="run-4",
                     datasets=["bars_5m"])  # fmt: skip
    assert outcome(past, "600001.SH", "bars_5m").status == "up-to-date"


def test_us_5_minute_bars_older_than_yahoos_60_days_are_refused_and_recorded(database: Database) -> None:
    desk = us_desk(database)
    old = desk.sync(["EXMP"], start=date(2024, 1, 2), end=TODAY, datasets=["bars", "bars_5m"])
    assert outcome(old, "EXMP", "bars").status == "written"
    assert outcome(old, "EXMP", "bars_5m").status == "failed"
    [failure] = desk.state.failures("run-1")
    assert (failure["provider"], failure["dataset"]) == ("yfinance", "bars_5m")  # SEC has no bars: not asked
    assert failure["reason"] == (
        "yfinance keeps 5-minute bars for the last 60 days only: EXMP from 2024-01-02 is older; "
        "start on 2024-11-02 or later"
    )
    assert old.symbol_status == {"EXMP": "partial"} and desk.state.done_through("EXMP", "bars_5m") is None
    recent = desk.sync(["EXMP"], start=date(2024, 11, 2), end=TODAY, run="run-2", datasets=["bars_5m"])
    assert (outcome(recent, "EXMP", "bars_5m").status, outcome(recent, "EXMP", "bars_5m").rows) == (
        "written",
        15,
    )


def test_unknown_datasets_are_refused_before_anything_is_fetched(database: Database) -> None:
    sdk = FixtureAkShare()
    desk = Desk(database, {"CN": [akshare(sdk)]})
    with pytest.raises(BadRequestException, match=r"unknown dataset\(s\) bars_1m, ticks") as info:
        desk.sync(["600001.SH"], datasets=["bars", "ticks", "bars_1m"])
    assert info.value.code == "INVALID_DATASET" and sdk.calls == []
    assert SyncService.datasets([" BARS_5M ", "bars"]) == ("bars", "bars_5m")  # in fetch order
    assert (
        SyncService.datasets(None)
        == SyncService.datasets([])
        == ("security", "bars", "valuations", "financials")
    )


def test_symbols_must_belong_to_the_market(database: Database) -> None:
    desk = Desk(database, {"CN": [akshare(FixtureAkShare())]})
    with pytest.raises(BadRequestException, match="not CN symbols: AAPL"):
        desk.service.sync("cn", ["600001.SH", "AAPL"], START, END, "run-x")
    with pytest.raises(BadRequestException, match="no data provider for market 'jp'"):
        desk.service.sync("jp", ["7203.T"], START, END, "run-x")


def test_container_provider_lists(
    settings: Settings, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SEC_USER_AGENT", raising=False)
    lists = DataEngineeringContainer(settings, database).providers_by_market
    assert {m: [p.name for p in ps] for m, ps in lists.items()} == {
        "CN": ["akshare"], "US": ["yfinance", "sec"], "HK": ["yfinance"], "TW": ["yfinance"],
    }  # fmt: skip
    with pytest.raises(ConfigurationError, match="SEC_USER_AGENT"):
        lists["US"][1].financials("AAPL")  # the reason lands in sync_failures instead of a silent skip
    assert lists["US"][1].valuations("AAPL", START, END).empty
    monkeypatch.setenv("TUSHARE_TOKEN", "not-a-real-token")
    monkeypatch.setenv("SEC_USER_AGENT", "stockdesk tests tests@example.com")
    lists = DataEngineeringContainer(settings, database).providers_by_market
    assert [p.name for p in lists["CN"]] == ["akshare", "tushare"]
    assert isinstance(lists["US"][1], SecEdgarProvider)


def cli_with(settings: Settings, database: Database, providers: dict[str, list[IMarketDataProvider]]):  # type: ignore[no-untyped-def]
    container = DataEngineeringContainer(settings, database)
    container.__dict__["providers_by_market"] = providers  # the cached_property, preset with fixture SDKs
    return build_data_cli(lambda: container)


def test_cli_sync_prints_json_and_exits_by_outcome(settings: Settings, database: Database) -> None:
    runner = CliRunner()
    args = ["sync", "--market", "cn", "--symbols", "600001.SH,600009.SH", "--from", "2024-01-01"]
    args += ["--to", "2024-01-31", "--json"]
    ok = runner.invoke(
        cli_with(settings, database, {"CN": [akshare(FixtureAkShare(unreachable=("600009",)))]}), args
    )
    assert ok.exit_code == 0, ok.output
    payload = json.loads(ok.stdout)
    assert payload["symbol_status"] == {"600001.SH": "ok", "600009.SH": "failed"}
    assert {f["symbol"] for f in payload["failures"]} == {"600009.SH"}

    args[args.index("--to") + 1] = "2024-02-29"  # a new window: nothing is up to date, every call fails
    down = runner.invoke(cli_with(settings, database, {"CN": [akshare(FixtureAkShare(down=True))]}), args)
    assert down.exit_code == 1
    assert json.loads(down.stdout)["all_failed"] is True


def test_cli_sync_fetches_5_minute_bars_with_datasets(settings: Settings, database: Database) -> None:
    providers: dict[str, list[IMarketDataProvider]] = {"US": [yfinance(FixtureYFinance())]}
    args = ["sync", "--market", "us", "--symbols", "EXMP", "--from", "2024-06-03", "--to", "2024-12-31"]
    old = CliRunner().invoke(cli_with(settings, database, providers), [*args, "--datasets", "bars_5m"])
    assert old.exit_code == 1  # the only dataset of the only symbol failed
    assert (
        "failed: EXMP bars_5m via yfinance: yfinance keeps 5-minute bars for the last 60 days only"
        in old.output
    )
    args[args.index("--from") + 1] = "2024-12-27"
    result = CliRunner().invoke(
        cli_with(settings, database, providers), [*args, "--datasets", "bars_5m", "--json"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert [(o["dataset"], o["status"], o["rows"]) for o in payload["outcomes"]] == [
        ("bars_5m", "written", 15)
    ]
    wrong = CliRunner().invoke(cli_with(settings, database, providers), [*args, "--datasets", "bars,minutes"])
    assert isinstance(wrong.exception, BadRequestException) and wrong.exception.code == "INVALID_DATASET"


def test_cli_sync_table_lists_failures(settings: Settings, database: Database) -> None:
    providers = {"CN": [akshare(FixtureAkShare(unreachable=("600009",)))]}
    result = CliRunner().invoke(
        cli_with(settings, database, providers),
        ["sync", "--market", "cn", "--symbols", "600009.SH", "--from", "2024-01-01", "--to", "2024-01-31"],
    )
    assert result.exit_code == 1
    assert "failed: 600009.SH security via akshare" in result.output
