"""The paper book on a hand-built market: limit-up and limit-down opens, T+1, lots, a suspension;
replay == the same days stepped one by one; stepping twice changes nothing; point in time."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from stockdesk.backtest.application import performance
from stockdesk.entrypoints.container import AppContainer
from stockdesk.paper.application import BadBookInput, BookExists, DayVerdict, PaperBook, PaperService
from stockdesk.paper.application.market import PaperMarket
from stockdesk.paper.application.verdicts import RulesVerdicts
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.paper.market import DAYS, LIMIT_DOWN_DAY, LIMIT_UP_DAY, SUSPENDED_DAY, A, B, C, populate

# BUY A the day before its limit-up open; BUY B, then SELL B the day it was bought (T+1); BUY B again
# and SELL it the day before its limit-down open; BUY C the day before its suspension.
SCRIPT: dict[tuple[str, date], str] = {
    (B, DAYS[1]): "BUY",
    (B, DAYS[2]): "SELL",
    (A, DAYS[4]): "BUY",
    (B, DAYS[6]): "BUY",
    (B, DAYS[8]): "SELL",
    (C, DAYS[11]): "BUY",
}


class ScriptedVerdicts(RulesVerdicts):
    """The day's verdicts from a script (HOLD when unscripted); remembers which days it was asked."""

    def __init__(self, script: Mapping[tuple[str, date], str]):
        super().__init__(lambda: None)  # type: ignore[arg-type,return-value]
        self.script = dict(script)
        self.asked: list[date] = []

    def verdicts(self, book: PaperBook, symbols: Sequence[str], day: date) -> list[DayVerdict]:
        self.asked.append(day)
        return [DayVerdict(day=day, symbol=s, action=self.script.get((s, day), "HOLD")) for s in symbols]


def make_service(app: AppContainer, script: Mapping[tuple[str, date], str] = SCRIPT) -> PaperService:
    return PaperService(
        app.paper.store, ScriptedVerdicts(script), PaperMarket(app.data.securities, app.data.market_frames)
    )


@pytest.fixture
def app(settings: Settings, database: Database) -> Iterator[AppContainer]:
    populate(database)
    container = AppContainer(settings)
    yield container
    container.close()


def opened(service: PaperService, name: str = "t") -> PaperBook:
    return service.open(name, market="CN", capital=1_000_000, symbols=[A, B, C])


def trade_rows(service: PaperService, name: str) -> list[tuple]:  # type: ignore[type-arg]
    return [(t.day, t.symbol, t.side, t.quantity, t.filled, t.reason) for t in service.show(name).trades]


def test_a_buy_at_a_limit_up_open_is_not_filled_and_says_why(app: AppContainer) -> None:
    service = make_service(app)
    opened(service)
    service.replay("t", DAYS[0], DAYS[-1])
    on_limit = [t for t in service.show("t").trades if t.symbol == A and t.day == LIMIT_UP_DAY]
    assert [(t.side, t.filled, t.quantity, t.reason) for t in on_limit] == [
        ("BUY", False, 0.0, "limit-up at the open")
    ]
    assert not any(t.symbol == A and t.filled for t in service.show("t").trades)


def test_shares_bought_today_are_sold_no_earlier_than_the_next_day(app: AppContainer) -> None:
    service = make_service(app)
    opened(service)
    service.replay("t", DAYS[0], DAYS[5])
    b = [(t.day, t.side) for t in service.show("t").trades if t.symbol == B and t.filled]
    assert b[:2] == [(DAYS[2], "BUY"), (DAYS[3], "SELL")]  # SELL verdict on the buy day: sold next open


def test_a_sale_at_a_limit_down_open_waits_and_goes_at_the_next_open(app: AppContainer) -> None:
    service = make_service(app)
    opened(service)
    service.replay("t", DAYS[0], DAYS[-1])
    b = [(t.day, t.side, t.filled, t.reason) for t in service.show("t").trades if t.symbol == B]
    assert (LIMIT_DOWN_DAY, "SELL", False, "limit-down at the open: retried at the next open it can") in b
    sold = [row for row in b if row[1] == "SELL" and row[2] and row[0] > DAYS[7]]
    assert sold == [(DAYS[10], "SELL", True, "retry")]


def test_a_suspended_name_is_not_bought_and_quantities_are_whole_lots(app: AppContainer) -> None:
    service = make_service(app)
    opened(service)
    service.replay("t", DAYS[0], DAYS[-1])
    trades = service.show("t").trades
    assert [(t.side, t.filled, t.reason) for t in trades if t.symbol == C and t.day == SUSPENDED_DAY] == [
        ("BUY", False, "suspended: no bar")
    ]
    filled = [t for t in trades if t.filled]
    assert filled and all(t.quantity > 0 and t.quantity % 100 == 0 for t in filled)
    buy = next(t for t in filled if t.side == "BUY")
    assert buy.quantity * buy.price <= 0.2 * 1_000_000  # one BUY that day: the 20 % cap, in lots
    assert buy.costs > 0


def test_replay_gives_the_same_trades_and_marks_as_the_days_stepped_one_by_one(app: AppContainer) -> None:
    service = make_service(app)
    opened(service, "replayed")
    opened(service, "stepped")
    service.replay("replayed", DAYS[0], DAYS[-1])
    for day in DAYS:
        service.step("stepped", day)
    assert trade_rows(service, "replayed") == trade_rows(service, "stepped")
    assert service.show("replayed").marks == service.show("stepped").marks
    assert service.show("replayed").positions == service.show("stepped").positions
    assert len(service.show("stepped").marks) == len(DAYS)


def test_stepping_a_day_twice_changes_nothing(app: AppContainer) -> None:
    service = make_service(app)
    opened(service)
    service.step("t", DAYS[8])  # a new book starts at that day
    service.step("t", DAYS[10])
    before = service.show("t")
    assert service.step("t", DAYS[10]) == []
    assert service.step("t", DAYS[9]) == []
    assert service.show("t") == before
    assert [m.day for m in before.marks] == DAYS[8:11]


def test_an_interrupted_replay_goes_on_from_its_last_completed_day(app: AppContainer) -> None:
    whole, broken = make_service(app), make_service(app)
    opened(whole, "whole")
    opened(broken, "broken")
    whole.replay("whole", DAYS[0], DAYS[-1])

    def stop(result: object, count: int, total: int) -> None:
        if count == 7:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        broken.replay("broken", DAYS[0], DAYS[-1], on_day=stop)
    assert broken.get("broken").last_day == DAYS[6]
    broken.replay("broken", DAYS[0], DAYS[-1])
    assert trade_rows(broken, "broken") == trade_rows(whole, "whole")
    assert broken.show("broken").marks == whole.show("whole").marks


def test_bars_after_the_day_change_nothing_about_it(
    app: AppContainer, settings: Settings, tmp_path: Path
) -> None:
    day = DAYS[9]
    service = make_service(app)
    opened(service)
    service.replay("t", DAYS[0], day)
    other_db = Database(f"sqlite:///{tmp_path / 'perturbed.db'}")
    populate(other_db, perturb_after=day)
    other = AppContainer(
        settings.model_copy(update={"database_url": f"sqlite:///{tmp_path / 'perturbed.db'}"})
    )
    try:
        changed = make_service(other)
        opened(changed)
        changed.replay("t", DAYS[0], day)
        assert changed.show("t").model_dump(exclude={"book"}) == service.show("t").model_dump(
            exclude={"book"}
        )
        assert app.paper.store.orders(service.get("t").id) == other.paper.store.orders(changed.get("t").id)
        assert (
            other.data.market_frames.bars([A], DAYS[10], DAYS[10])["open"].iloc[0]
            != (app.data.market_frames.bars([A], DAYS[10], DAYS[10])["open"].iloc[0])
        )  # the later bars did differ
    finally:
        other.close()
        other_db.dispose()


def test_bad_input_is_one_line_errors(app: AppContainer) -> None:
    service = make_service(app)
    opened(service)
    with pytest.raises(BookExists):
        opened(service)
    with pytest.raises(BadBookInput, match=r"not in the store: 999999\.SH"):
        service.open("x", market="CN", capital=1e6, symbols=["999999.SH"])
    with pytest.raises(BadBookInput, match="market"):
        service.open("y", market="HK", capital=1e6, symbols=[A])
    service.step("t", DAYS[5])
    with pytest.raises(BadBookInput, match="replay from"):
        service.replay("t", DAYS[8], DAYS[9])


def test_the_figures_are_the_strategy_labs_over_the_marks(app: AppContainer) -> None:
    service = make_service(app)
    opened(service)
    service.replay("t", DAYS[0], DAYS[-1])
    view = service.show("t")
    assert view.figures is not None
    equity = pd.Series([m.equity for m in view.marks])
    assert view.figures.metrics == performance(equity / 1_000_000)
    assert view.figures.end_equity == view.marks[-1].equity
    assert view.figures.trades == sum(t.filled for t in view.trades) > 0
    assert view.figures.not_filled == 3  # limit-up, limit-down, suspension
    last = view.marks[-1]
    assert last.cash + last.positions_value == pytest.approx(last.equity, abs=0.02)
    assert last.positions_value == pytest.approx(sum(p.value for p in view.positions), abs=0.05)
