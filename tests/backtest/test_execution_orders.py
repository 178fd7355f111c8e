"""`execute` against the frictionless engine, a day-by-day share-counting reference, and the market
rules as invariants over random panels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from stockdesk.backtest.application import (
    ExecutionRules,
    TradingPanel,
    execute,
    simulate,
)
from stockdesk.shared.errors import BadRequestException
from tests.backtest.execution_support import DAYS, NAN, frame, no_lots, panel, rates, targets

Case = tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]


@st.composite
def markets(draw: st.DrawFn, gaps: bool = False) -> Case:
    """(closes, opens, decisions): random prices, optionally with suspended days, random targets."""
    n = draw(st.integers(3, 20))
    m = draw(st.integers(1, 4))
    prices = st.floats(2.0, 100.0, allow_nan=False)

    def grid() -> np.ndarray:
        return np.array(draw(st.lists(st.lists(prices, min_size=m, max_size=m), min_size=n, max_size=n)))

    closes, opens = grid(), grid()
    if gaps:
        off = np.array(
            draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n))
        )
        off &= np.arange(n)[:, None] % 3 == 1
        closes[off], opens[off] = np.nan, np.nan
    symbols = [f"S{i}" for i in range(m)]
    days = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n)))
    raw = np.array(
        draw(
            st.lists(
                st.lists(st.floats(0, 1), min_size=m, max_size=m), min_size=len(days), max_size=len(days)
            )
        )
    ).reshape(len(days), m)
    sums = raw.sum(axis=1)
    scale = np.array(draw(st.lists(st.floats(0, 1), min_size=len(days), max_size=len(days))))
    weights = np.where(sums[:, None] > 0, raw / np.where(sums > 0, sums, 1)[:, None] * scale[:, None], 0.0)
    weights[weights < 1e-6] = 0.0  # a sliver below the order tolerance is no order in `execute`
    index = DAYS[:n]
    return (
        pd.DataFrame(closes, index=index, columns=symbols),
        pd.DataFrame(opens, index=index, columns=symbols),
        pd.DataFrame(weights, index=index[days], columns=symbols),
    )


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(markets(), st.sampled_from([None, 0.08, 0.2]))
def test_without_rules_or_costs_execute_is_the_frictionless_open_execution(
    case: Case, stop_loss: float | None
) -> None:
    close, opens, decisions = case
    if stop_loss is not None:
        ratios = close.to_numpy()[:, None, :] / opens.to_numpy()[None, :, :]
        assume(not np.any(np.abs(ratios - (1 - stop_loss)) < 1e-9))
    zero = pd.Series(0.0, index=close.columns)
    common = {"stop_loss": stop_loss, "buy_cost": zero, "sell_cost": zero}
    ours = execute(panel(close, opens), decisions, rules=ExecutionRules.off(), **common)
    engine = simulate(close, decisions, execution_price=opens, **common)
    assert ours.nav.to_numpy() == pytest.approx(engine.nav.to_numpy(), rel=1e-9, abs=1e-12)
    assert ours.weights.to_numpy() == pytest.approx(engine.weights.to_numpy(), abs=1e-9)
    assert (ours.orders, ours.stop_losses, ours.rebalances) == (
        engine.orders,
        engine.stop_losses,
        engine.rebalances,
    )


def reference_nav(
    close: pd.DataFrame, opens: pd.DataFrame, decisions: pd.DataFrame, buy: np.ndarray, sell: np.ndarray
) -> np.ndarray:
    """Count money, one day at a time: sell to target at the open, then buy with what cash there is
    (each buy scaled alike when it falls short), costs on the money traded."""
    fills = {close.index.get_loc(day) + 1: row.to_numpy() for day, row in decisions.iterrows()}
    units, cash, navs = np.zeros(close.shape[1]), 1.0, []
    for t in range(len(close)):
        if t in fills:
            holding = units * opens.iloc[t].to_numpy()
            nav = cash + holding.sum()
            goal = fills[t] * nav
            sells = np.clip(holding - goal, 0, None)
            buys = np.clip(goal - holding, 0, None)
            cash += (sells * (1 - sell)).sum()
            need = (buys * (1 + buy)).sum()
            if need > cash:
                buys *= cash / need
            cash -= (buys * (1 + buy)).sum()
            units = (holding - sells + buys) / opens.iloc[t].to_numpy()
        navs.append(cash + (units * close.iloc[t].to_numpy()).sum())
    return np.array(navs)


@SETTINGS
@given(markets(), st.data())
def test_costs_match_a_money_counting_reference(case: Case, data: st.DataObject) -> None:
    close, opens, decisions = case
    m = close.shape[1]
    buy = np.array(data.draw(st.lists(st.floats(0, 0.01), min_size=m, max_size=m)))
    sell = np.array(data.draw(st.lists(st.floats(0, 0.01), min_size=m, max_size=m)))
    sim = execute(
        panel(close, opens),
        decisions,
        stop_loss=None,
        buy_cost=pd.Series(buy, index=close.columns),
        sell_cost=pd.Series(sell, index=close.columns),
        rules=ExecutionRules.off(),
    )
    expected = reference_nav(close, opens, decisions, buy, sell)
    assert sim.nav.to_numpy() == pytest.approx(expected, rel=1e-9, abs=1e-12)


@SETTINGS
@given(markets(gaps=True), st.data())
def test_the_rules_hold_on_random_panels(case: Case, data: st.DataObject) -> None:
    close, opens, decisions = case
    # limits: today's open is at a limit where the draw says so (limit prices set to the open)
    n, m = close.shape
    flags = np.array(data.draw(st.lists(st.sampled_from([0, 1, 2]), min_size=n * m, max_size=n * m)))
    flags = flags.reshape(n, m)
    at_up = pd.DataFrame(np.where(flags == 1, opens, opens * 1.5), index=close.index, columns=close.columns)
    at_down = pd.DataFrame(np.where(flags == 2, opens, opens * 0.5), index=close.index, columns=close.columns)
    market: TradingPanel = panel(close, opens, limit_up=at_up, limit_down=at_down)
    rules = ExecutionRules(capital=data.draw(st.sampled_from([None, 50_000.0, 1_000_000.0])))
    costs = pd.Series(0.001, index=close.columns)
    sim = execute(market, decisions, stop_loss=0.1, buy_cost=costs, sell_cost=costs, rules=rules)

    assert np.isfinite(sim.nav).all() and (sim.nav > 0).all()
    sums = sim.weights.sum(axis=1)
    assert (sim.weights.to_numpy() >= -1e-12).all() and (sums <= 1 + 1e-9).all()  # never borrows
    opened = sim.trades.loc[sim.trades["reason"] != "stop"]
    for row in opened.itertuples():
        assert not np.isnan(close.loc[row.date, row.symbol]), "traded while suspended"
        flag = flags[close.index.get_loc(row.date), close.columns.get_loc(row.symbol)]
        assert not (row.side == "BUY" and flag == 1), "bought at limit-up"
        assert not (row.side == "SELL" and flag == 2), "sold at limit-down"
        if rules.capital is not None and row.side == "BUY":
            assert row.shares / 100 == pytest.approx(round(row.shares / 100), abs=1e-6), "bought a part lot"
    bought = {(row.date, row.symbol) for row in opened.itertuples() if row.side == "BUY"}
    for row in sim.trades.loc[sim.trades["reason"] == "stop"].itertuples():
        assert (row.date, row.symbol) not in bought, "sold on the day it was bought (T+1)"


def test_costs_must_cover_every_targeted_symbol_and_day() -> None:
    close = frame(A=[10, 11, 12], B=[5, 5, 5])
    decisions = targets({0: {"A": 0.5}})
    with pytest.raises(BadRequestException, match="buy_cost"):
        execute(panel(close), decisions, stop_loss=None, buy_cost=rates(B=0.0), sell_cost=rates(A=0.0, B=0.0))
    partial = pd.DataFrame({"A": [0.001, np.nan, 0.001]}, index=close.index)
    with pytest.raises(BadRequestException, match="sell_cost"):
        execute(panel(close), decisions, stop_loss=None, buy_cost=rates(A=0.0), sell_cost=partial)
    with pytest.raises(BadRequestException, match="stop_loss"):
        execute(panel(close), decisions, stop_loss=1.5, buy_cost=rates(A=0.0), sell_cost=rates(A=0.0))


def test_with_nan_keeps_a_nan_target_is_no_order_and_without_it_a_sale() -> None:
    close = frame(A=[10.0, 10.0, 12.0, 12.0, 12.0], B=[10.0, 10.0, 10.0, 10.0, 10.0])
    plan = pd.DataFrame({"A": [0.5, NAN], "B": [0.0, 0.4]}, index=[DAYS[0], DAYS[2]])
    free = rates(A=0.0, B=0.0)
    kept = execute(panel(close), plan, stop_loss=None, buy_cost=free, sell_cost=free, rules=no_lots(),
                   nan_keeps=True)  # fmt: skip
    sold = execute(panel(close), plan, stop_loss=None, buy_cost=free, sell_cost=free, rules=no_lots())
    # A doubled its weight's worth (10 -> 12) and is left as it drifted: no trade of A at day 3's open
    assert list(kept.trades["symbol"]) == ["A", "B"]
    assert kept.weights.loc[DAYS[3], "A"] == pytest.approx(0.6 / 1.1)
    assert sold.weights.loc[DAYS[3], "A"] == 0.0  # NaN as 0: sold
    assert ("A", "SELL") in set(zip(sold.trades["symbol"], sold.trades["side"], strict=True))
