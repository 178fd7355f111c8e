"""The holder's action and plan (judge/application/services/holder_plan.py): every branch of the rules
as a table, lots of 100 (CN) and 1 (US), the T+1 lock, the odd-lot remainder, and a property that the
shares are never negative and a sale never sells more than is held."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stockdesk.judge.application.services.holder_plan import (
    HolderInputs,
    holder_plan,
    locked_shares,
    odd_lot,
    whole_lots,
)
from stockdesk.judge.domain.dtos.holding import Holding
from stockdesk.judge.domain.model.enums import ActionDirection

AS_OF = date(2024, 6, 28)
BUY, HOLD, SELL = ActionDirection.BUY, ActionDirection.HOLD, ActionDirection.SELL


def held(
    quantity: float = 1000,
    cost: float = 10.0,
    close: float = 11.0,
    *,
    market: str = "CN",
    book: float | None = None,
    opened: date | None = date(2024, 1, 2),
) -> Holding:
    """A holding as the coordinator builds it: lot and T+1 by market, locked shares by the rule."""
    lot, t1 = (100, True) if market == "CN" else (1, False)
    value = quantity * close
    book_value = book if book is not None else value
    locked = locked_shares(quantity, opened, AS_OF, t1)
    return Holding(
        symbol="600001.SH" if market == "CN" else "AAPL",
        market=market,
        as_of=AS_OF,
        account="default",
        quantity=quantity,
        cost_price=cost,
        cost_basis=quantity * cost,
        close=close,
        market_value=value,
        unrealised_pnl=value - quantity * cost,
        unrealised_pnl_pct=(close - cost) / cost * 100 if cost else None,
        opened_at=opened,
        days_held=(AS_OF - opened).days if opened else None,
        lot_size=lot,
        t_plus_one=t1,
        locked_shares=locked,
        sellable_shares=quantity - locked,
        book_value=book_value,
        book_weight=min(1.0, value / book_value),
        buy_cost_rate=0.0003,
        sell_cost_rate=0.0008,
    )


def inputs(percent: float = 0.2, p_up: float | None = None, downside: float | None = 0.5) -> HolderInputs:
    return HolderInputs(
        downside=downside, buy_target=12.0, watch_above=11.6, target_percent=percent, p_up=p_up
    )


# (case, base action, holding, inputs) -> (holder action, rule, shares)
CASES = [
    # BUY -> ADD up to the plan's share of the book, in whole lots; else HOLD, worded
    (
        "add CN: (0.2 x 110,000 - 11,000) / 11 = 1,000 shares",
        BUY,
        held(book=110_000),
        inputs(),
        ("ADD", "add", 1000),
    ),
    (
        "add rounds down to lots: 0.2 x 100,000 - 11,000 = 818.18 sh",
        BUY,
        held(book=100_000),
        inputs(),
        ("ADD", "add", 800),
    ),
    ("add US whole shares", BUY, held(10, 100, 110, market="US", book=10_000), inputs(), ("ADD", "add", 8)),
    ("at or above target", BUY, held(book=11_000), inputs(), ("HOLD", "hold_at_target", 0)),
    ("gap under one lot", BUY, held(book=55_500), inputs(), ("HOLD", "hold_under_lot", 0)),
    # HOLD -> HOLD, EXIT when the holder's stop is crossed
    ("hold in profit: stop trails the close", HOLD, held(cost=10, close=11), inputs(), ("HOLD", "hold", 0)),
    ("hold under water, loss < d", HOLD, held(cost=11.3, close=11), inputs(), ("HOLD", "hold", 0)),
    (
        "hold under water, loss >= d: exit",
        HOLD,
        held(cost=11.5, close=11),
        inputs(),
        ("EXIT", "exit_stop", 1000),
    ),
    (
        "hold without prices: no stop",
        HOLD,
        held(cost=20, close=11),
        inputs(downside=None),
        ("HOLD", "hold", 0),
    ),
    # SELL -> EXIT on a calibrated P(up) <= 0.40 or a crossed stop; else TRIM half the sellable, in lots
    ("sell calibrated 0.40: exit", SELL, held(), inputs(p_up=0.40), ("EXIT", "exit_probability", 1000)),
    ("sell calibrated 0.41: trim", SELL, held(), inputs(p_up=0.41), ("TRIM", "trim", 500)),
    ("sell uncalibrated: trim", SELL, held(), inputs(p_up=None), ("TRIM", "trim", 500)),
    ("sell, stop crossed: exit", SELL, held(cost=12, close=11), inputs(), ("EXIT", "exit_stop", 1000)),
    ("trim 350: half 175 -> one lot", SELL, held(350), inputs(), ("TRIM", "trim", 100)),
    ("trim 150: half < lot, the odd 50 sold whole", SELL, held(150), inputs(), ("TRIM", "trim_odd", 50)),
    ("trim exactly one lot: hold", SELL, held(100), inputs(), ("HOLD", "hold_trim_small", 0)),
    ("trim an odd lot alone: hold", SELL, held(50), inputs(), ("HOLD", "hold_trim_small", 0)),
    (
        "exit sells the odd lot with the rest",
        SELL,
        held(1050),
        inputs(p_up=0.1),
        ("EXIT", "exit_probability", 1050),
    ),
    ("US trim 3 shares: 1", SELL, held(3, 100, 110, market="US"), inputs(), ("TRIM", "trim", 1)),
    ("US trim 1 share: hold", SELL, held(1, 100, 110, market="US"), inputs(), ("HOLD", "hold_trim_small", 0)),
    # T+1 (CN only): opened on the as-of date, every share locked today
    ("T+1: trim nothing sellable", SELL, held(opened=AS_OF), inputs(), ("HOLD", "hold_locked", 0)),
    ("T+1: exit waits a day", SELL, held(opened=AS_OF), inputs(p_up=0.2), ("EXIT", "exit_probability", 0)),
    ("US has no T+1", SELL, held(10, 100, 110, market="US", opened=AS_OF), inputs(), ("TRIM", "trim", 5)),
]


@pytest.mark.parametrize(("case", "base", "holding", "given", "expected"), CASES, ids=[c[0] for c in CASES])
def test_every_branch_of_the_rules(
    case: str, base: ActionDirection, holding: Holding, given: HolderInputs, expected: tuple[str, str, float]
) -> None:
    plan = holder_plan(base, holding, given)
    assert (plan.action, plan.rule, plan.shares) == expected, case
    assert plan.base_action == base.value
    assert plan.lots * plan.lot_size + plan.odd_shares == pytest.approx(plan.shares)
    assert plan.reason and plan.i18n["zh"]["reason"] and plan.i18n["en"]["reason"] == plan.reason


def test_the_stop_trails_a_profit_and_limits_a_loss_from_the_cost() -> None:
    in_profit = holder_plan(HOLD, held(cost=10, close=11), inputs(downside=0.5))
    assert (in_profit.stop, in_profit.stop_distance_pct, in_profit.stop_crossed) == (10.5, 4.55, False)
    under_water = holder_plan(HOLD, held(cost=11.5, close=11), inputs(downside=0.5))
    assert (under_water.stop, under_water.stop_distance_pct, under_water.stop_crossed) == (11.0, 0.0, True)
    assert under_water.target is None  # nothing stays held after an exit


def test_an_add_says_its_lots_target_weight_and_costs() -> None:
    plan = holder_plan(BUY, held(book=100_000), inputs(percent=0.2))
    assert (plan.shares, plan.lots, plan.odd_shares, plan.lot_size) == (800, 8, 0.0, 100)
    assert plan.target == 12.0 and plan.target_distance_pct == 9.09 and plan.target_weight == 0.2
    assert plan.trade_value == 8800.0 and plan.estimated_cost == 2.64 and plan.cost_rate == 0.0003
    assert "800 shares (8 lots of 100)" in plan.reason and "11.0%" in plan.reason
    assert "800 股（8 手" in plan.i18n["zh"]["reason"]


def test_a_sale_is_costed_at_the_sell_rate_and_the_break_even_covers_it() -> None:
    plan = holder_plan(SELL, held(), inputs())
    assert plan.trade_value == 5500.0 and plan.estimated_cost == 4.4 and plan.cost_rate == 0.0008
    assert plan.break_even == pytest.approx(10 / (1 - 0.0008), abs=1e-4)
    assert plan.target == 11.6  # what stays held watches the HOLD plan's upside level


def test_locked_shares_are_worded_and_never_sold() -> None:
    plan = holder_plan(SELL, held(opened=AS_OF), inputs(p_up=0.2))
    assert (plan.locked_shares, plan.sellable_shares, plan.shares) == (1000, 0, 0)
    assert "locked under T+1" in plan.reason and "T+1" in plan.i18n["zh"]["reason"]


def test_the_t_plus_one_lock_applies_only_on_the_opening_day_in_a_t_plus_one_market() -> None:
    assert locked_shares(500, AS_OF, AS_OF, True) == 500
    assert locked_shares(500, date(2024, 6, 27), AS_OF, True) == 0
    assert locked_shares(500, None, AS_OF, True) == 0  # no opening date known: nothing to lock
    assert locked_shares(500, AS_OF, AS_OF, False) == 0


def test_lot_rounding_and_the_odd_remainder() -> None:
    assert whole_lots(1050, 100) == 1000 and odd_lot(1050, 100) == pytest.approx(50)
    assert whole_lots(99.99999999999, 100) == 100  # float noise is not a missing share
    assert whole_lots(-5, 100) == 0 and odd_lot(300, 100) == 0


@settings(max_examples=300, deadline=None)
@given(
    base=st.sampled_from(list(ActionDirection)),
    market=st.sampled_from(["CN", "US"]),
    quantity=st.one_of(st.integers(1, 100_000).map(float), st.floats(0.01, 1e5)),
    cost=st.floats(0, 1000),
    close=st.floats(0.01, 1000),
    extra=st.floats(0, 1e8),
    percent=st.floats(0, 0.5),
    p_up=st.one_of(st.none(), st.floats(0, 1)),
    downside=st.one_of(st.none(), st.floats(0, 100)),
    today=st.booleans(),
)
def test_shares_are_never_negative_and_a_sale_never_exceeds_what_is_held(
    base: ActionDirection,
    market: str,
    quantity: float,
    cost: float,
    close: float,
    extra: float,
    percent: float,
    p_up: float | None,
    downside: float | None,
    today: bool,
) -> None:
    holding = held(
        quantity, cost, close, market=market, book=quantity * close + extra, opened=AS_OF if today else None
    )
    plan = holder_plan(base, holding, HolderInputs(downside=downside, target_percent=percent, p_up=p_up))
    assert plan.shares >= 0 and plan.lots >= 0 and plan.estimated_cost >= 0
    assert plan.locked_shares + plan.sellable_shares == pytest.approx(quantity)
    if plan.action in ("TRIM", "EXIT"):
        assert plan.shares <= plan.sellable_shares <= quantity
        assert plan.shares <= quantity
    if plan.action == "HOLD":
        assert plan.shares == 0
    if plan.action == "ADD":
        assert plan.shares % holding.lot_size == pytest.approx(0, abs=1e-6)
    expected = {BUY: {"ADD", "HOLD"}, ActionDirection.HOLD: {"HOLD", "EXIT"}, SELL: {"EXIT", "TRIM", "HOLD"}}
    assert plan.action in expected[base]
