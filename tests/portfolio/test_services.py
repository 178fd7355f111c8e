"""Watchlists and holdings through the services: symbols checked against the store (codes in any
spelling, a name that one security has), reruns idempotent, and point-in-time valuation (the close
known on the as-of date; bars after it change nothing)."""

from __future__ import annotations

from datetime import date, timedelta

import pandas as pd
import pytest

from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.portfolio.application import UnknownSymbolError, WatchlistNotFoundError
from stockdesk.portfolio.container import PortfolioContainer
from tests.portfolio.support import AS_OF, close_on


def test_watchlist_add_resolves_codes_and_names_and_reruns_add_nothing(portfolio: PortfolioContainer) -> None:
    service = portfolio.watchlists
    assert service.add("core", ["600001", "示例地产", "aapl"]).symbols == ["600001.SH", "000002.SZ", "AAPL"]
    assert service.add("core", ["AAPL", "600003.SH"]).symbols == [
        "600001.SH",
        "000002.SZ",
        "AAPL",
        "600003.SH",
    ]
    assert service.symbols("core") == ["600001.SH", "000002.SZ", "AAPL", "600003.SH"]
    assert service.remove("core", ["000002", "Apple Inc"]).symbols == ["600001.SH", "600003.SH"]  # type: ignore[union-attr]
    assert [w.name for w in service.lists()] == ["core"]
    assert service.remove("core") is None
    with pytest.raises(WatchlistNotFoundError):
        service.symbols("core")


def test_unknown_and_ambiguous_symbols_write_nothing(portfolio: PortfolioContainer) -> None:
    with pytest.raises(UnknownSymbolError, match=r"unknown symbol '999999\.SH'"):
        portfolio.watchlists.add("x", ["600001.SH", "999999.SH"])
    with pytest.raises(UnknownSymbolError, match="several securities"):
        portfolio.watchlists.add("x", ["示例"])
    assert portfolio.watchlists.lists() == []


def test_valuation_is_point_in_time(app_container: AppContainer, portfolio: PortfolioContainer) -> None:
    holdings = portfolio.holdings
    holdings.set("600001.SH", 1000, 9.5, opened_at=date(2024, 3, 1))
    holdings.set("AAPL", 10, 200, account="us")
    as_of = date(2024, 3, 29)  # a Friday
    before = holdings.positions(as_of)
    held = holdings.position("600001.SH", as_of)
    assert held is not None
    close = close_on("600001.SH", as_of)
    assert (held.close, held.close_date) == (close, as_of)
    assert held.market_value == pytest.approx(1000 * close)
    assert held.cost_basis == pytest.approx(9500)
    assert held.unrealised_pnl == pytest.approx(1000 * close - 9500)
    assert held.unrealised_pnl_pct == pytest.approx((close - 9.5) / 9.5 * 100)
    assert held.days_held == 28
    weekend = holdings.position("600001.SH", as_of + timedelta(days=1))
    assert weekend is not None and weekend.close_date == as_of  # Saturday: Friday's close
    # perturb every bar after as_of: nothing as of then changes
    later = pd.bdate_range(as_of + timedelta(days=1), AS_OF)
    bars = pd.DataFrame({"symbol": "600001.SH", "trade_date": later, "open": 99.0, "high": 99.0, "low": 99.0,
                         "close": 99.0, "volume": 1.0, "amount": 1.0, "adj_factor": 1.0})  # fmt: skip
    MarketDataImportService(SqlMarketDataRepository(app_container.database)).import_frames(
        "test", {"bars": bars}
    )
    assert holdings.positions(as_of) == before
    assert holdings.position("600001.SH", AS_OF).close == 99.0  # type: ignore[union-attr]


def test_a_position_opened_after_as_of_was_not_held_then(portfolio: PortfolioContainer) -> None:
    portfolio.holdings.set("600001.SH", 100, 10, opened_at=date(2024, 6, 1))
    assert portfolio.holdings.position("600001.SH", date(2024, 5, 31)) is None
    assert portfolio.holdings.positions(date(2024, 5, 31)) == []
    today = portfolio.holdings.position("600001.SH", date(2024, 6, 1))
    assert today is not None and today.days_held == 0  # opened today: T+1 can tell the shares are locked


def test_position_without_account_combines_the_accounts(portfolio: PortfolioContainer) -> None:
    portfolio.holdings.set("600001.SH", 100, 10, account="a", opened_at=date(2024, 2, 1))
    portfolio.holdings.set("600001.SH", 300, 12, account="b", opened_at=date(2024, 4, 1))
    combined = portfolio.holdings.position("600001", AS_OF)
    assert combined is not None
    assert (combined.account, combined.quantity, combined.opened_at) == ("*", 400, date(2024, 4, 1))
    assert combined.cost_price == pytest.approx((100 * 10 + 300 * 12) / 400)
    assert portfolio.holdings.position("600001.SH", AS_OF, account="a").quantity == 100  # type: ignore[union-attr]


def test_no_bar_before_as_of_leaves_the_value_empty(portfolio: PortfolioContainer) -> None:
    portfolio.holdings.set("600001.SH", 100, 10)
    held = portfolio.holdings.position("600001.SH", date(2023, 6, 1))
    assert held is not None
    assert (held.close, held.market_value, held.unrealised_pnl, held.unrealised_pnl_pct) == (
        None,
        None,
        None,
        None,
    )
    assert held.cost_basis == 1000


def test_set_rejects_bad_numbers_and_remove_needs_a_position(portfolio: PortfolioContainer) -> None:
    from stockdesk.portfolio.application import PositionNotFoundError
    from stockdesk.shared.errors import BadRequestException

    with pytest.raises(BadRequestException, match="quantity must be > 0"):
        portfolio.holdings.set("600001.SH", 0, 10)
    with pytest.raises(BadRequestException, match="quantity must be > 0"):
        portfolio.holdings.set("600001.SH", 10, float("nan"))
    with pytest.raises(BadRequestException, match="quantity must be > 0"):
        portfolio.holdings.set("600001.SH", 1e300, 1e300)  # the value would overflow
    with pytest.raises(PositionNotFoundError):
        portfolio.holdings.remove("600001.SH")
    portfolio.holdings.set("600001.SH", 10, 10)
    portfolio.holdings.remove("示例银行")
    assert portfolio.holdings.stored() == []
