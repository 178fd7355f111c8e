"""The portfolio view over a real store (the hand-built market of `view_market`): target weights
from scripted verdicts, trades in whole lots with the execution module's costs, the T+1 lock on
shares bought on the as-of day, the risk figures, errors, and point in time (the bars after the
as-of date changed: the view is the same)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from stockdesk.backtest.application import cost_frames
from stockdesk.entrypoints.container import AppContainer
from stockdesk.portfolio.application.market import PortfolioMarket
from stockdesk.portfolio.application.view_service import PortfolioViewService
from stockdesk.portfolio.domain.errors import (
    PortfolioEmptyError,
    PortfolioSourceError,
    WatchlistNotFoundError,
)
from stockdesk.portfolio.domain.view import NameVerdict, PortfolioView
from stockdesk.portfolio.presentation.shown import RISK_FIGURES, shown_view
from stockdesk.shared.config import Settings
from tests.portfolio.view_market import AS_OF, BANK1, BANK2, CAR, DAYS, INSURER, LATE, SYMBOLS, populate

SCRIPT = {BANK1: "BUY", BANK2: "BUY", INSURER: "BUY", CAR: "SELL", LATE: "BUY"}


def scripted(symbols: list[str], day: date) -> list[NameVerdict]:
    return [
        NameVerdict(symbol=s, action=SCRIPT.get(s, "HOLD"), probability_up=0.6, calibrated=True, close=None)
        for s in symbols
    ]


def service_of(app: AppContainer) -> PortfolioViewService:
    market = PortfolioMarket(app.data.securities, app.data.market_frames)
    return PortfolioViewService(app.portfolio.watchlists, app.portfolio.holdings, market, scripted)


@pytest.fixture
def app(settings: Settings) -> Iterator[AppContainer]:
    container = AppContainer(settings)
    populate(container.database)
    container.portfolio.watchlists.add("desk", list(SYMBOLS))
    yield container
    container.close()


def by_symbol(view: PortfolioView) -> dict[str, object]:
    return {a.symbol: a for a in view.allocations}


def test_a_watchlist_view_sizes_buys_caps_and_prices_trades_in_lots(app: AppContainer) -> None:
    view = service_of(app).view(AS_OF, watchlist="desk", capital=1_000_000)
    names = by_symbol(view)
    assert names[CAR].target_weight == 0.0  # type: ignore[attr-defined]
    assert names[LATE].target_weight == 0.0 and names[LATE].reasons[-1].code == "no_history"  # type: ignore[attr-defined]
    assert all(a.target_weight <= 0.20 + 1e-9 for a in view.allocations)
    assert view.target is not None and view.target.volatility <= 0.15 + 1e-9
    assert view.current is not None and view.current.cash_weight == 1.0
    assert view.window_days == 120 and view.window_start == DAYS[199 - 120]
    rates, _ = cost_frames(([AS_OF], {s: "CN" for s in SYMBOLS}))
    bought = {t.symbol: t for t in view.trades}
    assert set(bought) == {BANK1, BANK2, INSURER}
    for t in view.trades:
        assert t.side == "BUY" and t.lot == 100 and t.shares % 100 == 0 and t.shares > 0
        assert t.costs > 0 and t.costs == pytest.approx(
            t.shares * t.price * rates.iloc[0][t.symbol], abs=0.01
        )
        weight = names[t.symbol].target_weight  # type: ignore[attr-defined]
        assert t.value <= weight * 1_000_000 < t.value + 100 * t.price  # whole lots, rounded down
    assert view.total_costs == pytest.approx(sum(t.costs for t in view.trades))
    # shown: the all-cash current book has no risk figures but its cash weight; the target has them all
    shown = shown_view(view, "en")
    assert shown.current == [*["—"] * (len(RISK_FIGURES) - 1), "100.0%"], shown.current
    assert "—" not in [v for k, v in zip(RISK_FIGURES, shown.target, strict=True) if k != "beta"]


def test_held_shares_bought_on_the_day_are_not_sold_that_day(app: AppContainer) -> None:
    holdings = app.portfolio.holdings
    holdings.set(CAR, 1_000, 9.0, opened_at=DAYS[100])
    holdings.set(CAR, 500, 9.5, account="second", opened_at=AS_OF)
    view = service_of(app).view(AS_OF, holdings=True, cash=500_000)
    sells = [t for t in view.trades if t.symbol == CAR]
    assert len(sells) == 1 and sells[0].side == "SELL"
    assert sells[0].shares == 1_000 and sells[0].locked_shares == 500
    assert sells[0].note is not None and "T+1" in sells[0].note.text["en"]
    _, sell_rates = cost_frames(([AS_OF], {CAR: "CN"}))
    assert sells[0].costs == pytest.approx(1_000 * sells[0].price * sell_rates.iloc[0][CAR], abs=0.01)
    assert view.book_value == pytest.approx(1_500 * sells[0].price + 500_000, abs=0.01)
    assert view.current is not None and view.current.top_weight == pytest.approx(
        1 - 500_000 / view.book_value
    )


def test_a_second_run_and_later_bars_change_nothing(app: AppContainer, settings: Settings) -> None:
    first = service_of(app).view(AS_OF, watchlist="desk")
    assert service_of(app).view(AS_OF, watchlist="desk") == first
    populate(app.database, perturb_after=AS_OF)  # every bar after AS_OF now falls 5 % a day
    again = service_of(app).view(AS_OF, watchlist="desk")
    assert again == first
    later = service_of(app).view(DAYS[-1], watchlist="desk")
    assert later.curve[-1].benchmark != first.curve[-1].benchmark  # the perturbation is visible after


def test_a_sale_of_only_locked_shares_is_listed_with_none_sold(app: AppContainer) -> None:
    app.portfolio.holdings.set(CAR, 800, 9.0, opened_at=AS_OF)
    view = service_of(app).view(AS_OF, holdings=True)
    (sale,) = [t for t in view.trades if t.symbol == CAR]
    assert (sale.side, sale.shares, sale.locked_shares, sale.costs) == ("SELL", 0.0, 800, 0.0)
    assert sale.note is not None and "800 shares bought on" in sale.note.text["en"]
    assert "次日方可卖出" in sale.note.text["zh"]


def test_bad_requests_say_which_rule(app: AppContainer) -> None:
    service = service_of(app)
    with pytest.raises(PortfolioSourceError):
        service.view(AS_OF)
    with pytest.raises(PortfolioSourceError):
        service.view(AS_OF, watchlist="desk", holdings=True)
    with pytest.raises(WatchlistNotFoundError):
        service.view(AS_OF, watchlist="nope")
    with pytest.raises(PortfolioEmptyError):
        service.view(AS_OF, holdings=True)
    with pytest.raises(PortfolioEmptyError):
        service.view(date(2000, 1, 3), watchlist="desk")
