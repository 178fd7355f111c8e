"""The backtest engine against hand-computed NAVs and a day-by-day share-counting reference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from stockdesk.backtest.application import (
    DEFAULT_COSTS,
    CostModel,
    cost_rates,
    equal_weight_benchmark,
    simulate,
)
from stockdesk.shared.errors import BadRequestException
from tests.backtest.execution_support import DAYS, NAN, frame, rates, targets


def zero(*symbols: str) -> pd.Series:
    return pd.Series(0.0, index=list(symbols))


def test_one_decision_executes_next_day_drifts_and_pays_buy_costs() -> None:
    close = frame(A=[10, 12, 10, 11, 12.5, 10], B=[20, 20, 25, 20, 20, 30])
    sim = simulate(
        close,
        targets({1: {"A": 0.5, "B": 0.3}}),
        stop_loss=0.5,
        buy_cost=rates(A=0.001, B=0.002),
        sell_cost=zero("A", "B"),
    )
    # d0, d1: all cash -> 1.0 (the decision on d1 does not trade on d1; A's jump to 12 is not captured)
    # d2: executes at A=10, B=25; cost 0.5*0.001 + 0.3*0.002 = 0.0011 -> NAV 0.9989
    # d3: A 11/10 = 1.1, B 20/25 = 0.8: growth 0.2 cash + 0.5*1.1 + 0.3*0.8 = 0.99 -> 0.9989*0.99 = 0.988911
    # d4: A 1.25, B 0.8: 0.2 + 0.625 + 0.24 = 1.065 -> 1.0638285
    # d5: A 1.0, B 1.2: 0.2 + 0.5 + 0.36 = 1.06 -> 1.058834
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 0.9989, 0.988911, 1.0638285, 1.058834], abs=1e-12)
    # returns: d3 = 0.99 - 1, d4 = 1.065/0.99 - 1
    assert sim.returns.iloc[0] == 0.0
    assert sim.returns.iloc[3] == pytest.approx(-0.01)
    assert sim.returns.iloc[4] == pytest.approx(1.065 / 0.99 - 1)
    # end-of-day weights: d2 = targets; d4 drifted: A 0.625/1.065, B 0.24/1.065
    assert sim.weights.iloc[2].tolist() == pytest.approx([0.5, 0.3])
    assert sim.weights.iloc[4].tolist() == pytest.approx([0.625 / 1.065, 0.24 / 1.065])
    assert sim.weights.iloc[:2].to_numpy().sum() == 0.0
    assert sim.turnover.to_dict() == {DAYS[2]: pytest.approx(0.4)}  # (0.5 + 0.3) / 2
    assert (sim.orders, sim.stop_losses, sim.rebalances) == (2, 0, 1)
    # last segment marked at the last close: A 10/10 - 1 = 0, B 30/25 - 1 = 0.2
    assert sim.position_returns.to_dict() == {
        (DAYS[2], "A"): pytest.approx(0.0),
        (DAYS[2], "B"): pytest.approx(0.2),
    }


def test_second_rebalance_charges_costs_on_the_drifted_difference() -> None:
    close = frame(A=[10, 10, 15, 15, 18, 12], B=[10, 10, 5, 5, 6, 5])
    sim = simulate(
        close,
        targets({0: {"A": 0.5, "B": 0.5}, 2: {"A": 0.5, "B": 0.3}}),
        stop_loss=0.9,
        buy_cost=rates(A=0.002, B=0.002),
        sell_cost=rates(A=0.004, B=0.004),
    )
    # d1: buy 0.5 + 0.5 at 0.002 -> cost 0.002, NAV 0.998
    # d2: A 1.5, B 0.5 -> growth 0.75 + 0.25 = 1.0 -> 0.998; drifted A 0.75, B 0.25
    # d3 (execution of d2's decision): prices unchanged, growth 1.0; A 0.75 -> 0.5 sells 0.25,
    #     B 0.25 -> 0.3 buys 0.05: cost 0.25*0.004 + 0.05*0.002 = 0.0011 -> 0.998 * 0.9989 = 0.9969022
    # d4: A 18/15 = 1.2, B 6/5 = 1.2: 0.2 cash + 0.6 + 0.36 = 1.16 -> 1.156406552
    # d5: A 0.8, B 1.0: 0.2 + 0.4 + 0.3 = 0.9 -> 0.89721198
    expected = [1.0, 0.998, 0.998, 0.9969022, 1.156406552, 0.89721198]
    assert sim.nav.tolist() == pytest.approx(expected, abs=1e-12)
    # turnover: d1 (0.5 + 0.5)/2 = 0.5; d3 (0.25 + 0.05)/2 = 0.15
    assert sim.turnover.tolist() == pytest.approx([0.5, 0.15])
    assert list(sim.turnover.index) == [DAYS[1], DAYS[3]]
    assert (sim.orders, sim.rebalances) == (4, 2)
    assert sim.weights.iloc[2].tolist() == pytest.approx([0.75, 0.25])
    assert sim.weights.iloc[3].tolist() == pytest.approx([0.5, 0.3])
    # segment 1 (entry d1) ends d3: A 15/10 - 1, B 5/10 - 1; segment 2 (entry d3): A 12/15 - 1, B 5/5 - 1
    assert sim.position_returns.to_dict() == {
        (DAYS[1], "A"): pytest.approx(0.5),
        (DAYS[1], "B"): pytest.approx(-0.5),
        (DAYS[3], "A"): pytest.approx(-0.2),
        (DAYS[3], "B"): pytest.approx(0.0),
    }


def test_stop_loss_freezes_value_pays_sell_cost_once_and_waits_in_cash() -> None:
    close = frame(A=[10, 10, 9, 8, 7, 12, 13.2], B=[10, 10, 11, 11, 11, 11, 11])
    sim = simulate(
        close,
        targets({0: {"A": 0.6, "B": 0.4}, 4: {"A": 0.5, "B": 0.5}}),
        stop_loss=0.15,
        buy_cost=zero("A", "B"),
        sell_cost=rates(A=0.01, B=0.01),
    )
    # d1: buys, no buy cost -> 1.0
    # d2: A 0.9 (above the 0.85 stop), B 1.1: 0.54 + 0.44 = 0.98
    # d3: A 0.8 <= 0.85 -> sold at 8: 0.6*0.8*(1 - 0.01) = 0.4752 in cash; + B 0.44 = 0.9152
    # d4: A falls to 7 but is no longer held: still 0.9152 (sell cost not charged again)
    # d5 (execution of d4's decision): A's rise to 12 is not captured: 0.9152; buys A 0.5 (old 0),
    #     B from 0.44/0.9152 to 0.5; buy cost 0 -> 0.9152
    # d6: A enters anew at 12: 13.2/12 = 1.1, B 1.0: 0.9152 * (0.55 + 0.5) = 0.96096
    expected = [1.0, 1.0, 0.98, 0.9152, 0.9152, 0.9152, 0.96096]
    assert sim.nav.tolist() == pytest.approx(expected, abs=1e-12)
    assert sim.weights.loc[DAYS[3], "A"] == 0.0
    assert sim.weights.loc[DAYS[4]].tolist() == pytest.approx([0.0, 0.44 / 0.9152])
    assert sim.turnover.iloc[1] == pytest.approx((0.5 + (0.5 - 0.44 / 0.9152)) / 2)
    # 2 buys at d1 + 1 stop exit + 2 buys at d5
    assert (sim.orders, sim.stop_losses, sim.rebalances) == (5, 1, 2)
    assert sim.position_returns.to_dict() == {
        (DAYS[1], "A"): pytest.approx(-0.2),  # frozen at the stop, not the 7 of d4
        (DAYS[1], "B"): pytest.approx(0.1),
        (DAYS[5], "A"): pytest.approx(0.1),
        (DAYS[5], "B"): pytest.approx(0.0),
    }


def test_stop_entry_price_resets_at_each_execution() -> None:
    # A is held through two executions; from 10 it falls to 9 (-10 %), then to 8.1 (-10 % from the new
    # entry at 9, -19 % overall). With a 15 % stop it is never stopped: the entry is the execution close.
    close = frame(A=[10, 10, 9, 9, 8.1])
    sim = simulate(
        close,
        targets({0: {"A": 1.0}, 2: {"A": 1.0}}),
        stop_loss=0.15,
        buy_cost=zero("A"),
        sell_cost=zero("A"),
    )
    assert sim.stop_losses == 0
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 0.9, 0.9, 0.81])
    # the second execution finds A drifted to exactly 1.0 of NAV: no order
    assert (sim.orders, sim.rebalances) == (1, 2)


def test_decision_day_jump_is_not_captured() -> None:
    close = frame(A=[10, 10, 20, 20])
    costless = {"stop_loss": 0.5, "buy_cost": zero("A"), "sell_cost": zero("A")}
    late = simulate(close, targets({1: {"A": 1.0}}), **costless)
    # decided on d1, bought at d2's close of 20: the jump d1 -> d2 is missed
    assert late.nav.tolist() == pytest.approx([1.0, 1.0, 1.0, 1.0])
    early = simulate(close, targets({0: {"A": 1.0}}), **costless)
    # decided on d0, bought at d1's close of 10: the jump is held
    assert early.nav.tolist() == pytest.approx([1.0, 1.0, 2.0, 2.0])


def test_decision_on_last_day_is_ignored() -> None:
    close = frame(A=[10, 11, 12])
    sim = simulate(close, targets({2: {"A": 1.0}}), stop_loss=0.1, buy_cost=zero("A"), sell_cost=zero("A"))
    assert sim.nav.tolist() == [1.0, 1.0, 1.0]
    assert (sim.orders, sim.rebalances, len(sim.turnover), len(sim.position_returns)) == (0, 0, 0, 0)


def test_execution_on_last_day_trades_but_has_no_position_period() -> None:
    close = frame(A=[10, 11, 12])
    sim = simulate(
        close, targets({1: {"A": 1.0}}), stop_loss=0.1, buy_cost=rates(A=0.01), sell_cost=zero("A")
    )
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 0.99])  # bought at d2's close, 1 % cost
    assert sim.weights.iloc[-1].tolist() == [1.0]
    assert (sim.orders, sim.rebalances, len(sim.position_returns)) == (1, 1, 0)


def test_symbol_listed_later_goes_to_cash_and_suspended_day_is_flat() -> None:
    close = frame(A=[10, 10, 10, NAN, 12, 12], B=[NAN, NAN, NAN, 5, 6, 6])
    sim = simulate(
        close,
        targets({1: {"A": 0.5, "B": 0.5}, 3: {"A": 0.4, "B": 0.4}}),
        stop_loss=0.5,
        buy_cost=zero("A", "B"),
        sell_cost=zero("A", "B"),
    )
    # d2 (execution of d1's decision): B has no close yet -> its 0.5 stays cash; A bought at 10
    # d3: A suspended (NaN close = 0 return) -> NAV 1.0; B lists at 5 but is not held
    # d4 (execution of d3's decision): A resumes at 12: 0.5 cash + 0.5 * 1.2 = 1.1; drifted A 0.6/1.1;
    #     then trades to A 0.4, B 0.4 (B bought at 6)
    # d5: flat -> 1.1
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 1.0, 1.0, 1.1, 1.1])
    assert sim.weights.loc[DAYS[2]].tolist() == [0.5, 0.0]
    assert sim.weights.loc[DAYS[4]].tolist() == [0.4, 0.4]
    # orders: d2 buys A (B dropped); d4: A 0.6/1.1 -> 0.4 (sell) and B 0 -> 0.4 (buy)
    assert sim.orders == 3
    assert sim.turnover.tolist() == pytest.approx([0.25, (0.6 / 1.1 - 0.4 + 0.4) / 2])


def test_target_on_suspended_execution_day_goes_to_cash() -> None:
    close = frame(A=[10, 10, NAN, 20])
    sim = simulate(close, targets({1: {"A": 1.0}}), stop_loss=0.5, buy_cost=zero("A"), sell_cost=zero("A"))
    assert sim.nav.tolist() == [1.0, 1.0, 1.0, 1.0]
    assert sim.orders == 0


@pytest.mark.parametrize(
    ("rows", "stop", "message"),
    [
        ({7: {"A": 0.5}}, 0.1, "not in close"),
        ({1: {"Z": 0.5}}, 0.1, "not in close"),
        ({1: {"A": -0.1}}, 0.1, ">= 0"),
        ({1: {"A": 0.7, "B": 0.4}}, 0.1, "> 1"),
        ({1: {"A": 0.5}}, 0.0, "stop_loss"),
        ({1: {"A": 0.5}}, 1.0, "stop_loss"),
    ],
)
def test_invalid_input_is_a_bad_request(rows: dict[int, dict[str, float]], stop: float, message: str) -> None:
    close = frame(A=[10, 11, 12], B=[5, 5, 5])
    with pytest.raises(BadRequestException, match=message):
        simulate(close, targets(rows), stop_loss=stop, buy_cost=zero("A", "B"), sell_cost=zero("A", "B"))


def test_weights_summing_to_one_within_tolerance_pass_and_missing_cost_fails() -> None:
    close = frame(A=[10, 11, 12], B=[5, 5, 5])
    ok = targets({0: {"A": 0.7, "B": 0.3 + 1e-12}})
    assert (
        simulate(close, ok, stop_loss=0.1, buy_cost=zero("A", "B"), sell_cost=zero("A", "B")).rebalances == 1
    )
    with pytest.raises(BadRequestException, match="buy_cost"):
        simulate(close, ok, stop_loss=0.1, buy_cost=zero("A"), sell_cost=zero("A", "B"))


def test_equal_weight_benchmark_uses_symbols_priced_both_days() -> None:
    close = frame(A=[10, 11, NAN, 12.1], B=[NAN, 20, 22, 11])
    nav = equal_weight_benchmark(close)
    # d1: only A has both closes: +10 %; d2: only B: +10 %; d3: A had no close on d2, B -50 %
    assert nav.tolist() == pytest.approx([1.0, 1.1, 1.21, 0.605])
    both = equal_weight_benchmark(frame(A=[10, 11, 11], B=[10, 9, 9.9]))
    # d1: mean(+10 %, -10 %) = 0 -> 1.0; d2: mean(0, +10 %) = +5 % -> 1.05
    assert both.tolist() == pytest.approx([1.0, 1.0, 1.05])


def test_cost_rates_use_market_defaults_overrides_and_us_fallback() -> None:
    buy, sell = cost_rates(
        {"600519": "CN", "AAPL": "US", "0700": "hk", "2330": "TW", "X": "MARS"},
        overrides={"hk": CostModel(buy=0.002, sell=0.003)},
    )
    assert buy.to_dict() == {"600519": 0.0003, "AAPL": 0.0005, "0700": 0.002, "2330": 0.001425, "X": 0.0005}
    assert sell.to_dict() == {"600519": 0.0008, "AAPL": 0.0005, "0700": 0.003, "2330": 0.004425, "X": 0.0005}
    assert DEFAULT_COSTS["HK"] == CostModel(buy=0.0013, sell=0.0013)  # the override did not leak


# --- property: the vectorised engine against a day-by-day share-counting reference -----------------


def reference_nav(
    close: pd.DataFrame, weights: pd.DataFrame, stop_loss: float, buy: np.ndarray, sell: np.ndarray
) -> np.ndarray:
    """Loop over days holding share counts: the straightforward way the engine must agree with."""
    price = close.ffill().to_numpy()
    listed = close.notna().to_numpy()
    n, m = price.shape
    orders = {close.index.get_loc(day) + 1: row.to_numpy() for day, row in weights.fillna(0.0).iterrows()}
    shares, entry, cash = np.zeros(m), np.ones(m), 1.0
    navs = []
    for t in range(n):
        value = np.where(shares > 0, shares * np.nan_to_num(price[t]), 0.0)
        for s in range(m):
            if shares[s] > 0 and price[t, s] / entry[s] <= 1 - stop_loss:
                cash += value[s] * (1 - sell[s])
                shares[s], value[s] = 0.0, 0.0
        nav = cash + value.sum()
        if t in orders:
            new = np.where(listed[t], orders[t], 0.0)
            delta = new - value / nav
            nav *= 1 - (np.clip(delta, 0, None) * buy + np.clip(-delta, 0, None) * sell).sum()
            with np.errstate(invalid="ignore", divide="ignore"):
                shares = np.where(new > 0, new * nav / price[t], 0.0)
            entry = np.where(new > 0, price[t], 1.0)
            cash = nav * (1 - new.sum())
        navs.append(nav)
    return np.array(navs)


@st.composite
def backtests(draw: st.DrawFn, with_costs: bool) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray]:
    n = draw(st.integers(3, 25))
    m = draw(st.integers(1, 4))
    prices = st.floats(1.5, 100.0, allow_nan=False)
    grid = np.array(draw(st.lists(st.lists(prices, min_size=m, max_size=m), min_size=n, max_size=n)))
    gaps = np.array(draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n)))
    grid[gaps & (np.arange(n)[:, None] % 3 == 0)] = np.nan  # some suspended / not-yet-listed days
    symbols = [f"S{i}" for i in range(m)]
    close = pd.DataFrame(
        grid, index=DAYS.append(pd.bdate_range("2024-01-17", periods=20))[:n], columns=symbols
    )
    days = sorted(draw(st.sets(st.integers(0, n - 1), max_size=n)))
    raw = np.array(
        draw(
            st.lists(
                st.lists(st.floats(0, 1), min_size=m, max_size=m), min_size=len(days), max_size=len(days)
            )
        )
    )
    raw = raw.reshape(len(days), m)
    scale = np.array(draw(st.lists(st.floats(0, 1), min_size=len(days), max_size=len(days))))
    sums = raw.sum(axis=1)
    w = np.where(sums[:, None] > 0, raw / np.where(sums > 0, sums, 1)[:, None] * scale[:, None], 0.0)
    decisions = pd.DataFrame(w, index=close.index[days], columns=symbols)
    cost = st.floats(0, 0.01) if with_costs else st.just(0.0)
    buy = np.array(draw(st.lists(cost, min_size=m, max_size=m)))
    sell = np.array(draw(st.lists(cost, min_size=m, max_size=m)))
    return close, decisions, buy, sell


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(backtests(with_costs=False))
def test_nav_matches_share_counting_reference(
    case: tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray],
) -> None:
    close, decisions, buy, sell = case
    sim = simulate(
        close,
        decisions,
        stop_loss=0.99,
        buy_cost=pd.Series(buy, index=close.columns),
        sell_cost=pd.Series(sell, index=close.columns),
    )
    assert sim.nav.to_numpy() == pytest.approx(
        reference_nav(close, decisions, 0.99, buy, sell), rel=1e-9, abs=1e-9
    )
    assert sim.stop_losses == 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(backtests(with_costs=True), st.sampled_from([0.08, 0.10, 0.12, 0.15, 0.5]))
def test_nav_with_costs_and_stops_matches_reference(
    case: tuple[pd.DataFrame, pd.DataFrame, np.ndarray, np.ndarray], stop_loss: float
) -> None:
    close, decisions, buy, sell = case
    price = close.ffill().to_numpy()
    # keep clear of ties at the stop level, where rounding of p / entry could go either way
    ratios = price[:, None, :] / price[None, :, :]
    assume(not np.any(np.abs(ratios - (1 - stop_loss)) < 1e-9))
    sim = simulate(
        close,
        decisions,
        stop_loss=stop_loss,
        buy_cost=pd.Series(buy, index=close.columns),
        sell_cost=pd.Series(sell, index=close.columns),
    )
    expected = reference_nav(close, decisions, stop_loss, buy, sell)
    assert sim.nav.to_numpy() == pytest.approx(expected, rel=1e-9, abs=1e-9)
