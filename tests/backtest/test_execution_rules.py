"""The A-share execution rules on tiny hand-built panels, through every entry point that runs targets
through the market: `execute` (the strategy lab's backtests) and `follow_portfolio` (the evaluation's
follow-the-verdict portfolio). Costs are zero unless a test is about them."""

from __future__ import annotations

import pandas as pd
import pytest

from stockdesk.backtest.application import ExecutionRules, cost_frames, zero_costs
from tests.backtest.execution_support import (
    DAYS,
    ENTRY_POINTS,
    NAN,
    WITH_STOPS,
    EntryPoint,
    entry_id,
    frame,
    no_lots,
    panel,
    rates,
    targets,
)

ZERO = {"buy_cost": rates(A=0.0, B=0.0, C=0.0), "sell_cost": rates(A=0.0, B=0.0, C=0.0)}


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=entry_id)
def test_a_buy_at_a_limit_up_open_does_not_fill(entry: EntryPoint) -> None:
    close = frame(A=[10, 11, 12, 12], B=[20, 20, 22, 22])
    opens = frame(A=[10, 11, 11.5, 12], B=[20, 20, 21, 22])
    up = frame(A=[NAN, 11.0, 12.1, 13.2])  # d1: the open 11.0 is the limit-up price (10 x 1.1)
    market = panel(close, opens, limit_up=up)
    decisions = targets({0: {"A": 0.5, "B": 0.5}})
    sim = entry.run(market, decisions, rules=no_lots(), **ZERO)
    # d1: A refused (limit-up open), B bought 0.5 at 20: 0.5 cash + 0.5 = 1.0
    # d2: B 22/20: 0.5 + 0.55 = 1.05; d3: flat
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 1.05, 1.05], abs=1e-12)
    assert sim.weights.loc[DAYS[1]].tolist() == pytest.approx([0.0, 0.5])
    assert sim.blocked_by_limit == 1
    assert sim.trades[["symbol", "side"]].values.tolist() == [["B", "BUY"]]
    free = entry.run(market, decisions, rules=no_lots(price_limits=False), **ZERO)
    # without limits A is bought at 11: d2 = 0.5 x 12/11 + 0.55
    assert free.nav.iloc[2] == pytest.approx(0.5 * 12 / 11 + 0.55)
    assert free.blocked_by_limit == 0


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=entry_id)
def test_a_sell_at_limit_down_keeps_the_position_until_the_first_open_off_the_limit(
    entry: EntryPoint,
) -> None:
    close = frame(A=[10, 10, 8.5, 8.8, 9.0])
    opens = frame(A=[10, 10, 9.0, 8.6, 9.0])
    down = frame(A=[NAN, 9.0, 9.0, 7.65, 7.92])  # d2: 10 x 0.9 = 9.0 = the open; d3: 8.5 x 0.9
    sim = entry.run(
        panel(close, opens, limit_down=down), targets({0: {"A": 1.0}, 1: {"A": 0.0}}), rules=no_lots(), **ZERO
    )
    # d1: all in at 10 -> 1.0; d2: the sale is refused, A is kept and closes at 8.5 -> 0.85
    # d3: the pending sale goes through at the open 8.6 -> 0.86 in cash
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 0.85, 0.86, 0.86], abs=1e-12)
    assert sim.weights.loc[DAYS[2], "A"] == pytest.approx(1.0)
    assert sim.blocked_by_limit == 1
    assert sim.trades[["date", "side", "reason", "price"]].values.tolist() == [
        [DAYS[1], "BUY", "rebalance", 10.0],
        [DAYS[3], "SELL", "retry", 8.6],
    ]
    assert sim.turnover.to_dict() == pytest.approx({DAYS[1]: 0.5, DAYS[2]: 0.0, DAYS[3]: 0.5})
    assert (sim.orders, sim.rebalances) == (2, 2)
    # every decision fill starts a position-period (d2's at its open 9.0); the retry sale ends the last
    assert sim.position_returns.to_dict() == {
        (DAYS[1], "A"): pytest.approx(9.0 / 10 - 1),
        (DAYS[2], "A"): pytest.approx(8.6 / 9.0 - 1),
    }


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=entry_id)
def test_a_suspended_symbol_keeps_its_position_and_is_sold_on_the_first_open_it_trades(
    entry: EntryPoint,
) -> None:
    close = frame(A=[10, 10, 11, NAN, NAN, 12, 12], C=[5, 5, 5, NAN, 5, 5, 5])
    opens = frame(A=[10, 10, 11, NAN, NAN, 12.5, 12], C=[5, 5, 5, NAN, 5, 5, 5])
    sim = entry.run(
        panel(close, opens), targets({0: {"A": 1.0}, 2: {"A": 0.0, "C": 0.5}}), rules=no_lots(), **ZERO
    )
    # d1: all in A at 10; d2: A closes at 11 -> 1.1
    # d3: A and C suspended: A is kept (marked at its last close 11), C's buy skipped -> 1.1; d4: 1.1
    # d5: A trades again: sold at the open 12.5 -> 1.25 in cash (C's buy is not retried)
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 1.1, 1.1, 1.1, 1.25, 1.25], abs=1e-12)
    assert sim.weights.loc[DAYS[3]].tolist() == pytest.approx([1.0, 0.0])
    assert sim.skipped_suspended == 2
    assert sim.trades[["date", "symbol", "side", "price"]].values.tolist() == [
        [DAYS[1], "A", "BUY", 10.0],
        [DAYS[5], "A", "SELL", 12.5],
    ]
    # the decision fill on d3 ends the first position-period at the mark 11, the sale the second
    assert sim.position_returns.to_dict() == {
        (DAYS[1], "A"): pytest.approx(0.1),
        (DAYS[3], "A"): pytest.approx(12.5 / 11 - 1),
    }


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=entry_id)
def test_buys_are_scaled_down_when_a_blocked_sale_leaves_too_little_cash(entry: EntryPoint) -> None:
    close = frame(A=[10, 10, 9, 9], B=[20, 20, 20, 22])
    opens = frame(A=[10, 10, 9, 9], B=[20, 20, 20, 22])
    down = frame(A=[NAN, 9.0, 9.0, 8.1])
    sim = entry.run(
        panel(close, opens, limit_down=down),
        targets({0: {"A": 0.6}, 1: {"A": 0.0, "B": 1.0}}),
        rules=no_lots(),
        **ZERO,
    )
    # d1: A 0.6 at 10, cash 0.4 -> 1.0
    # d2: A opens at limit-down 9: kept, worth 0.54; NAV at the open 0.94; B wants 0.94 but only the
    #     0.4 cash is there: B gets 0.4 -> 0.54 + 0.4 = 0.94
    # d3: A sold at 9 (0.54 cash); B 0.4 x 22/20 = 0.44 -> 0.98
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 0.94, 0.98], abs=1e-12)
    assert sim.weights.loc[DAYS[2]].tolist() == pytest.approx([0.54 / 0.94, 0.4 / 0.94])
    assert sim.weights.loc[DAYS[3]].tolist() == pytest.approx([0.0, 0.44 / 0.98])


@pytest.mark.parametrize("entry", WITH_STOPS, ids=entry_id)
def test_a_t_plus_one_stop_waits_a_day(entry: EntryPoint) -> None:
    close = frame(A=[10, 8.5, 8.4, 8.0])
    opens = frame(A=[10, 10, 8.4, 8.0])
    market, decisions = panel(close, opens), targets({0: {"A": 1.0}})
    t1 = entry.run(market, decisions, stop_loss=0.1, rules=no_lots(), **ZERO)
    # d1: bought at the open 10, closes at 8.5 (-15 %): bought today, so it cannot be sold today -> 0.85
    # d2: the stop fires at the close 8.4 -> 0.84 in cash
    assert t1.nav.tolist() == pytest.approx([1.0, 0.85, 0.84, 0.84], abs=1e-12)
    assert t1.trades[["date", "reason", "price"]].values.tolist() == [
        [DAYS[1], "rebalance", 10.0],
        [DAYS[2], "stop", 8.4],
    ]
    anytime = entry.run(market, decisions, stop_loss=0.1, rules=no_lots(t_plus_one_markets=set()), **ZERO)
    assert anytime.nav.tolist() == pytest.approx([1.0, 0.85, 0.85, 0.85], abs=1e-12)  # sold at 8.5 on d1
    assert t1.stop_losses == anytime.stop_losses == 1


@pytest.mark.parametrize("entry", WITH_STOPS, ids=entry_id)
def test_a_stop_cannot_sell_at_a_limit_down_close(entry: EntryPoint) -> None:
    close = frame(A=[10, 10, 9.0, 8.6, 8.0])
    opens = frame(A=[10, 10, 9.5, 8.8, 8.0])
    down = frame(A=[NAN, 9.0, 9.0, 8.1, 7.74])  # d2: closes at limit-down 9.0
    sim = entry.run(
        panel(close, opens, limit_down=down), targets({0: {"A": 1.0}}), stop_loss=0.1, rules=no_lots(), **ZERO
    )
    # d2: -10 % hits the stop but the close is at limit-down: no buyer -> 0.9; d3: sold at 8.6 -> 0.86
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 0.9, 0.86, 0.86], abs=1e-12)
    assert (sim.stop_losses, sim.blocked_by_limit) == (1, 1)


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=entry_id)
def test_lots_hold_whole_hundreds_of_shares_and_the_rest_stays_in_cash(entry: EntryPoint) -> None:
    close = frame(A=[33.33, 33.33, 33.33], B=[50.0, 50.0, 50.0])
    market = panel(close, markets={"B": "US"})
    sim = entry.run(market, targets({0: {"A": 0.1, "B": 0.1}}), rules=ExecutionRules(), **ZERO)
    # A (CN): 1,000,000 x 0.1 = 100,000 / (33.33 x 100) = 30.003 -> 30 lots = 3,000 shares = 99,990
    # B (US, no lots): exactly 0.1 of the book; NAV flat at 1.0
    assert sim.trades["shares"].tolist() == pytest.approx([3000.0, 2000.0])
    assert sim.weights.loc[DAYS[1]].tolist() == pytest.approx([0.09999, 0.1], abs=1e-12)
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 1.0], abs=1e-12)
    fractional = entry.run(market, targets({0: {"A": 0.1, "B": 0.1}}), rules=no_lots(), **ZERO)
    assert fractional.weights.loc[DAYS[1], "A"] == pytest.approx(0.1)


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=entry_id)
def test_lot_rounding_follows_the_nav(entry: EntryPoint) -> None:
    close = frame(A=[10.0, 14.0, 14.0])
    opens = frame(A=[10.0, 10.0, 14.0])
    sim = entry.run(
        panel(close, opens), targets({0: {"A": 0.5}, 1: {"A": 0.5}}), rules=ExecutionRules(), **ZERO
    )
    # d1: 500,000 / (10 x 100) = 500 lots = 50,000 shares; closes at 14 -> 0.5 + 0.7 = 1.2
    # d2: money 1,200,000 x 0.5 = 600,000 / (14 x 100) = 428.57 -> 428 lots (rounded down, not to
    #     the nearest 429) = 42,800 shares: sell 7,200
    assert sim.trades["shares"].tolist() == pytest.approx([50_000.0, -7_200.0])
    assert sim.weights.loc[DAYS[2], "A"] == pytest.approx(42_800 * 14 / 1_200_000)
    assert sim.nav.tolist() == pytest.approx([1.0, 1.2, 1.2], abs=1e-12)


STAMP_DAYS = pd.to_datetime(["2023-08-23", "2023-08-24", "2023-08-25", "2023-08-28"])  # Wed Thu Fri Mon


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=entry_id)
@pytest.mark.parametrize(
    ("sell_decided", "after_costs"),
    [
        # bought on 08-24 at 10 with all the cash: 1 / 1.0003 worth after the 0.0003 commission;
        # sold on Friday 08-25: commission 0.0003 + stamp duty 0.1 % -> (1 - 0.0013) / 1.0003
        ("2023-08-24", 0.9987 / 1.0003),
        # sold on Monday 08-28, the day the duty was halved: 0.0003 + 0.05 % -> (1 - 0.0008) / 1.0003
        ("2023-08-25", 0.9992 / 1.0003),
    ],
)
def test_stamp_duty_on_a_sell_follows_its_trade_date_and_costs_sit_beside_zero_costs(
    entry: EntryPoint, sell_decided: str, after_costs: float
) -> None:
    close = pd.DataFrame({"A": [10.0] * 4}, index=STAMP_DAYS)
    market = panel(close)
    decisions = pd.DataFrame({"A": [1.0, 0.0]}, index=pd.to_datetime(["2023-08-23", sell_decided]))
    buy, sell = cost_frames(market)
    costly = entry.run(market, decisions, buy_cost=buy, sell_cost=sell, rules=no_lots())
    free_buy, free_sell = zero_costs(market)
    free = entry.run(market, decisions, buy_cost=free_buy, sell_cost=free_sell, rules=no_lots())
    assert costly.nav.iloc[-1] == pytest.approx(after_costs, rel=1e-12)
    assert free.nav.tolist() == [1.0, 1.0, 1.0, 1.0]  # flat prices: without costs nothing is lost
    assert costly.trades["side"].tolist() == free.trades["side"].tolist() == ["BUY", "SELL"]
