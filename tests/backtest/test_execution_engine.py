"""The shared engine: close execution unchanged by the move, open execution against hand-computed NAVs
and a day-by-day share-counting reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from stockdesk.backtest.application import simulate
from stockdesk.shared.errors import BadRequestException
from tests.backtest.execution_support import DAYS, NAN, frame, rates, targets

# --- close execution: exactly the numbers the strategy lab's engine produced before the move -------


def golden_case() -> tuple[pd.DataFrame, pd.DataFrame, pd.Series, pd.Series]:
    close = frame(
        A=[10, 10.4, 9.1, 8.3, 8.0, 9.5, 10.2, 10.1, 9.7, 10.6],
        B=[NAN, 20, 21, NAN, 22.5, 19.0, 18.2, 18.9, 19.9, 21.0],
        C=[5, 5.2, 5.1, 5.3, 5.6, NAN, 5.9, 6.3, 6.1, 5.8],
    )
    decisions = targets(
        {0: {"A": 0.5, "B": 0.3, "C": 0.2}, 3: {"A": 0.0, "B": 0.6, "C": 0.3}, 6: {"A": 0.4, "C": 0.5}}
    )
    return close, decisions, rates(A=0.001, B=0.002, C=0.0005), rates(A=0.003, B=0.001, C=0.002)


# Produced by stockdesk.strategy_lab.application.backtest.engine.simulate before it moved here (two
# stops, suspended holdings, a symbol listed late, per-symbol costs); compared bit for bit.
GOLDEN_NAV = [
    1.0,
    0.9988,
    0.9462045365384614,
    0.9538876134615384,
    0.9873333368641346,
    0.8946819765328042,
    0.9105498337324064,
    0.9312679796309726,
    0.9017331881348968,
    0.9127538511658905,
]
GOLDEN_TURNOVER = [0.5, 0.17050338555464278, 0.27117499947014817]
GOLDEN_POSITION_RETURNS = [
    -0.1250000000000001,
    0.125,
    0.07692307692307687,
    -0.15555555555555556,
    0.125,
    0.04950495049504955,
    -0.07936507936507942,
]


@pytest.mark.parametrize("explicit_none", [False, True])
def test_close_execution_reproduces_the_engine_before_the_move_bit_for_bit(explicit_none: bool) -> None:
    close, decisions, buy, sell = golden_case()
    extra = {"execution_price": None} if explicit_none else {}
    sim = simulate(close, decisions, stop_loss=0.12, buy_cost=buy, sell_cost=sell, **extra)
    assert sim.nav.tolist() == GOLDEN_NAV
    assert sim.turnover.tolist() == GOLDEN_TURNOVER
    assert (sim.orders, sim.stop_losses, sim.rebalances) == (9, 2, 3)
    assert list(sim.position_returns.index) == [
        (DAYS[1], "A"),
        (DAYS[1], "B"),
        (DAYS[1], "C"),
        (DAYS[4], "B"),
        (DAYS[4], "C"),
        (DAYS[7], "A"),
        (DAYS[7], "C"),
    ]
    assert sim.position_returns.tolist() == GOLDEN_POSITION_RETURNS
    assert sim.position_returns[(DAYS[1], "A")] == pytest.approx(9.1 / 10.4 - 1)  # stopped on d2


def test_close_execution_without_stops_never_stops() -> None:
    close, decisions, buy, sell = golden_case()
    stopped = simulate(close, decisions, stop_loss=0.12, buy_cost=buy, sell_cost=sell)
    free = simulate(close, decisions, stop_loss=None, buy_cost=buy, sell_cost=sell)
    assert stopped.stop_losses == 2
    assert free.stop_losses == 0
    # d2: A falls 10.4 -> 9.1 (-12.5 %): stopped at 9.1 in one run, still held in the other
    assert free.weights.loc[DAYS[2], "A"] > 0
    assert stopped.weights.loc[DAYS[2], "A"] == 0.0


# --- open execution by hand -----------------------------------------------------------------------


def test_open_execution_trades_at_the_next_open_and_earns_the_execution_day() -> None:
    close = frame(A=[10, 11, 12, 12.1, 11.0], B=[20, 19, 19, 20.9, 22.8])
    opens = frame(A=[9.8, 10, 11.5, 12.1, 13.0], B=[20, 20, 19.4, 19.0, 21.0])
    sim = simulate(
        close,
        targets({0: {"A": 0.5, "B": 0.4}, 2: {"A": 0.0, "B": 0.8}}),
        stop_loss=None,
        buy_cost=rates(A=0.001, B=0.002),
        sell_cost=rates(A=0.003, B=0.003),
        execution_price=opens,
    )
    # d0: all cash -> 1.0
    # d1: buys at the open (A 10, B 20): cost 0.5*0.001 + 0.4*0.002 = 0.0013 -> 0.9987 at the open;
    #     open -> close: A 11/10 = 1.1, B 19/20 = 0.95: 0.1 + 0.55 + 0.38 = 1.03 -> 0.9987 * 1.03
    # d2: A 12/10 = 1.2, B 0.95: 0.1 + 0.6 + 0.38 = 1.08 -> 0.9987 * 1.08 (the decision does not trade)
    # d3: at the open A 12.1/10 = 1.21, B 19/20 = 0.95: 0.1 + 0.605 + 0.38 = 1.085 (the overnight
    #     12 -> 12.1 still belongs to the old holdings); sell A 0.605/1.085 at 0.003, buy B up to 0.8
    #     from 0.38/1.085 at 0.002; then B earns 20.9/19 = 1.1 on the day: 0.2 + 0.88 = 1.08
    # d4: B 22.8/19 = 1.2: 0.2 + 0.96 = 1.16
    cost = 0.003 * 0.605 / 1.085 + 0.002 * (0.8 - 0.38 / 1.085)
    start = 0.9987 * 1.085 * (1 - cost)
    expected = [1.0, 0.9987 * 1.03, 0.9987 * 1.08, start * 1.08, start * 1.16]
    assert sim.nav.tolist() == pytest.approx(expected, abs=1e-12)
    assert sim.turnover.tolist() == pytest.approx([0.45, (0.605 / 1.085 + 0.8 - 0.38 / 1.085) / 2])
    assert list(sim.turnover.index) == [DAYS[1], DAYS[3]]
    # end-of-day weights on an execution day have already drifted from the open
    assert sim.weights.loc[DAYS[1]].tolist() == pytest.approx([0.55 / 1.03, 0.38 / 1.03])
    assert sim.weights.loc[DAYS[3]].tolist() == pytest.approx([0.0, 0.88 / 1.08])
    assert (sim.orders, sim.stop_losses, sim.rebalances) == (4, 0, 2)
    # a position-period runs open to the next execution's open (A: 10 -> 12.1), the last one to the close
    assert sim.position_returns.to_dict() == {
        (DAYS[1], "A"): pytest.approx(0.21),
        (DAYS[1], "B"): pytest.approx(-0.05),
        (DAYS[3], "B"): pytest.approx(0.2),
    }


def test_open_execution_differs_from_close_execution_on_the_same_decisions() -> None:
    close = frame(A=[10, 12, 12])
    opens = frame(A=[10, 10, 12])
    costless = {"stop_loss": None, "buy_cost": rates(A=0.0), "sell_cost": rates(A=0.0)}
    at_open = simulate(close, targets({0: {"A": 1.0}}), execution_price=opens, **costless)
    at_close = simulate(close, targets({0: {"A": 1.0}}), **costless)
    assert at_open.nav.tolist() == pytest.approx([1.0, 1.2, 1.2])  # bought at 10, the day's +20 % held
    assert at_close.nav.tolist() == pytest.approx([1.0, 1.0, 1.0])  # bought at 12 at the close


def test_open_execution_without_an_open_or_close_goes_to_cash_and_old_holding_is_marked_at_last_close() -> (
    None
):
    close = frame(A=[10, 10, 11, 12, 12], B=[5, 5, 5, NAN, 6])
    opens = frame(A=[10, 10, NAN, 12, 12], B=[5, 5, 5, 5.5, 6])
    sim = simulate(
        close,
        targets({0: {"B": 1.0}, 1: {"A": 0.5, "B": 0.5}, 2: {"A": 0.5, "B": 0.5}}),
        stop_loss=None,
        buy_cost=rates(A=0.0, B=0.0),
        sell_cost=rates(A=0.0, B=0.0),
        execution_price=opens,
    )
    # d1: B bought at its open 5 -> 1.0
    # d2: A has no open: its half goes to cash; B rebalanced to 0.5 at its open 5 -> 1.0
    # d3: B has an open (5.5) but no close: its target goes to cash; it is sold at the open 5.5:
    #     0.5 cash + 0.5 * 1.1 = 1.05; A bought at 12, flat on the day -> 1.05
    # d4: flat -> 1.05
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 1.0, 1.05, 1.05])
    assert sim.weights.loc[DAYS[2]].tolist() == pytest.approx([0.0, 0.5])
    assert sim.weights.loc[DAYS[3]].tolist() == pytest.approx([0.5, 0.0])
    assert sim.orders == 4  # d1 buy B; d2 sell B; d3 sell B, buy A


def test_open_execution_stop_measures_from_the_execution_open_including_that_day() -> None:
    close = frame(A=[10, 8.9, 9.5, 9.0], B=[10, 10, 10, 10])
    opens = frame(A=[10, 10, 9.0, 9.4], B=[10, 10, 10, 10])
    sim = simulate(
        close,
        targets({0: {"A": 0.5, "B": 0.5}}),
        stop_loss=0.1,
        buy_cost=rates(A=0.0, B=0.0),
        sell_cost=rates(A=0.01, B=0.01),
        execution_price=opens,
    )
    # d1: bought at the open 10; A closes at 8.9 (-11 %): stopped at that close on the execution day
    #     itself: 0.5 * 0.89 * 0.99 = 0.44055 cash + B 0.5 -> 0.94055; later moves of A do not count
    assert sim.nav.tolist() == pytest.approx([1.0, 0.94055, 0.94055, 0.94055])
    assert (sim.stop_losses, sim.orders) == (1, 3)
    assert sim.position_returns[(DAYS[1], "A")] == pytest.approx(-0.11)


def test_execution_price_must_match_close() -> None:
    close = frame(A=[10, 11, 12])
    common = {"stop_loss": None, "buy_cost": rates(A=0.0), "sell_cost": rates(A=0.0)}
    with pytest.raises(BadRequestException, match="same dates and symbols"):
        simulate(close, targets({0: {"A": 1.0}}), execution_price=frame(A=[10, 11]), **common)
    with pytest.raises(BadRequestException, match="positive"):
        simulate(close, targets({0: {"A": 1.0}}), execution_price=frame(A=[10, -1, 12]), **common)


# --- property: open execution against a day-by-day share-counting reference ------------------------


def reference_open_nav(
    close: pd.DataFrame,
    opens: pd.DataFrame,
    weights: pd.DataFrame,
    stop_loss: float | None,
    buy: np.ndarray,
    sell: np.ndarray,
) -> np.ndarray:
    """Hold share counts; trade at the open after each decision, stop at closes."""
    price = close.ffill().to_numpy()
    opening = opens.to_numpy()
    tradable = close.notna().to_numpy() & opens.notna().to_numpy()
    n, m = price.shape
    orders = {close.index.get_loc(day) + 1: row.to_numpy() for day, row in weights.fillna(0.0).iterrows()}
    shares, entry, cash = np.zeros(m), np.ones(m), 1.0
    navs = []
    for t in range(n):
        if t in orders:
            mark = np.where(np.isnan(opening[t]), price[t - 1], opening[t])
            value = np.where(shares > 0, shares * mark, 0.0)
            nav = cash + value.sum()
            new = np.where(tradable[t], orders[t], 0.0)
            delta = new - value / nav
            nav *= 1 - (np.clip(delta, 0, None) * buy + np.clip(-delta, 0, None) * sell).sum()
            with np.errstate(invalid="ignore", divide="ignore"):
                shares = np.where(new > 0, new * nav / opening[t], 0.0)
            entry = np.where(new > 0, opening[t], 1.0)
            cash = nav * (1 - new.sum())
        value = np.where(shares > 0, shares * np.nan_to_num(price[t]), 0.0)
        for s in range(m):
            if stop_loss is not None and shares[s] > 0 and price[t, s] / entry[s] <= 1 - stop_loss:
                cash += value[s] * (1 - sell[s])
                shares[s], value[s] = 0.0, 0.0
        navs.append(cash + value.sum())
    return np.array(navs)


@st.composite
def open_backtests(
    draw: st.DrawFn,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray]:
    n = draw(st.integers(3, 25))
    m = draw(st.integers(1, 4))
    prices = st.floats(1.5, 100.0, allow_nan=False)

    def grid() -> np.ndarray:
        return np.array(draw(st.lists(st.lists(prices, min_size=m, max_size=m), min_size=n, max_size=n)))

    closes, opens = grid(), grid()
    gaps = np.array(draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n)))
    closes[gaps & (np.arange(n)[:, None] % 3 == 0)] = np.nan
    opens[np.isnan(closes)] = np.nan
    opens[gaps & (np.arange(n)[:, None] % 4 == 1)] = np.nan  # an open missing on a day with a close
    symbols = [f"S{i}" for i in range(m)]
    close = pd.DataFrame(closes, index=DAYS[:n], columns=symbols)
    opening = pd.DataFrame(opens, index=DAYS[:n], columns=symbols)
    days = sorted(draw(st.sets(st.integers(0, n - 1), max_size=n)))
    raw = np.array(
        draw(
            st.lists(
                st.lists(st.floats(0, 1), min_size=m, max_size=m), min_size=len(days), max_size=len(days)
            )
        )
    ).reshape(len(days), m)
    scale = np.array(draw(st.lists(st.floats(0, 1), min_size=len(days), max_size=len(days))))
    sums = raw.sum(axis=1)
    w = np.where(sums[:, None] > 0, raw / np.where(sums > 0, sums, 1)[:, None] * scale[:, None], 0.0)
    decisions = pd.DataFrame(w, index=close.index[days], columns=symbols)
    buy = np.array(draw(st.lists(st.floats(0, 0.01), min_size=m, max_size=m)))
    sell = np.array(draw(st.lists(st.floats(0, 0.01), min_size=m, max_size=m)))
    return close, opening, decisions, buy, sell


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(open_backtests(), st.sampled_from([None, 0.08, 0.15, 0.5]))
def test_open_execution_matches_share_counting_reference(
    case: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray], stop_loss: float | None
) -> None:
    close, opens, decisions, buy, sell = case
    if stop_loss is not None:
        price = close.ffill().to_numpy()
        ratios = price[:, None, :] / opens.to_numpy()[None, :, :]
        assume(not np.any(np.abs(ratios - (1 - stop_loss)) < 1e-9))
    sim = simulate(
        close,
        decisions,
        stop_loss=stop_loss,
        buy_cost=pd.Series(buy, index=close.columns),
        sell_cost=pd.Series(sell, index=close.columns),
        execution_price=opens,
    )
    expected = reference_open_nav(close, opens, decisions, stop_loss, buy, sell)
    assert sim.nav.to_numpy() == pytest.approx(expected, rel=1e-9, abs=1e-9)
