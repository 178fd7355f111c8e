"""Follow-the-verdict portfolio: weights from filled BUYs, scaled to 1, executed at the next open
through `execute` (its market rules are tested with `execute` in test_execution_rules.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from stockdesk.backtest.application import ExecutionRules, execute, follow_portfolio, verdict_weights
from stockdesk.shared.errors import BadRequestException
from tests.backtest.execution_support import no_lots, panel

DAYS = pd.bdate_range("2024-01-01", periods=5)  # Monday .. Friday
CLOSE = pd.DataFrame(
    {"A": [10, 11, 12, 12.1, 11.0], "B": [20, 19, 19, 20.9, 22.8]}, index=DAYS, dtype="float64"
)
OPEN = pd.DataFrame(
    {"A": [9.8, 10, 11.5, 12.1, 13.0], "B": [20, 20, 19.4, 19.0, 21.0]}, index=DAYS, dtype="float64"
)


def verdicts(*rows: tuple[object, str, str, float, bool]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=["as_of", "symbol", "action", "position_percent", "filled"])


def test_verdict_weights_keep_filled_buys_only() -> None:
    weights = verdict_weights(
        verdicts(
            (DAYS[0], "A", "BUY", 30.0, True),
            (DAYS[0], "B", "BUY", 40.0, False),  # not filled: not held
            (DAYS[2], "A", "HOLD", 50.0, True),  # HOLD / SELL: not held
            (DAYS[2], "B", "buy", 80.0, True),
        )
    )
    assert weights.to_dict(orient="index") == {DAYS[0]: {"A": 0.3, "B": 0.0}, DAYS[2]: {"A": 0.0, "B": 0.8}}
    with pytest.raises(BadRequestException, match="more than one"):
        verdict_weights(verdicts((DAYS[0], "A", "BUY", 30.0, True), (DAYS[0], "A", "SELL", 0.0, True)))


def test_follow_portfolio_scales_down_and_executes_at_the_next_open() -> None:
    targets = pd.DataFrame({"A": [60.0, 0.0], "B": [60.0, 100.0]}, index=[DAYS[0], DAYS[2]]) / 100
    market = panel(CLOSE, OPEN)
    sell = pd.Series({"A": 0.003, "B": 0.003})
    sim = follow_portfolio(market, targets, 0.001, sell, no_lots())
    # d0's 0.6 + 0.6 = 1.2 is scaled to 0.5 + 0.5; bought at d1's open
    expected = execute(
        market,
        pd.DataFrame({"A": [0.5, 0.0], "B": [0.5, 1.0]}, index=[DAYS[0], DAYS[2]]),
        stop_loss=None,
        buy_cost=pd.Series(0.001, index=["A", "B"]),
        sell_cost=sell,
        rules=no_lots(),
    )
    assert sim.nav.tolist() == pytest.approx(expected.nav.tolist(), abs=1e-15)
    # d1 by hand: buying 1.0 of the book costs 1.001 with the 0.001 cost: every buy is scaled by
    # 1 / 1.001; then 0.5 * 11/10 + 0.5 * 19/20 = 1.025 -> 1.025 / 1.001
    assert sim.nav.iloc[1] == pytest.approx(1.025 / 1.001)
    assert list(sim.turnover.index) == [DAYS[1], DAYS[3]]


def test_the_default_rules_are_the_a_share_rules() -> None:
    market = panel(CLOSE, OPEN)  # every symbol CN
    targets = pd.DataFrame({"A": [0.33]}, index=[DAYS[0]])
    default = follow_portfolio(market, targets, 0.0, 0.0)
    # CN lots of 100 out of 1,000,000: 0.33 x 1,000,000 = 330,000 / (10 x 100) = 330 lots exactly
    assert default.trades["shares"].tolist() == [33_000.0]
    assert default.nav.tolist() == pytest.approx(
        follow_portfolio(market, targets, 0.0, 0.0, ExecutionRules()).nav
    )
    odd = follow_portfolio(market, pd.DataFrame({"A": [0.3333]}, index=[DAYS[0]]), 0.0, 0.0)
    assert odd.trades["shares"].tolist() == [33_300.0]  # 333,300 / 1,000 = 333.3 -> 333 lots


def test_a_weekend_decision_executes_at_monday_open_and_early_ones_are_dropped() -> None:
    close = pd.DataFrame(
        {"A": [10.0, 11.0, 12.0]}, index=pd.to_datetime(["2024-01-04", "2024-01-05", "2024-01-08"])
    )
    opens = pd.DataFrame({"A": [10.0, 10.5, 11.0]}, index=close.index)
    targets = pd.DataFrame(
        {"A": [1.0, 0.5, 1.0]}, index=pd.to_datetime(["2024-01-01", "2024-01-06", "2024-01-07"])
    )  # before the panel (dropped); Saturday and Sunday (both Friday's; Sunday's wins)
    sim = follow_portfolio(panel(close, opens), targets, 0.0, 0.0, no_lots())
    assert sim.rebalances == 1
    assert list(sim.turnover.index) == [pd.Timestamp("2024-01-08")]
    # all in at Monday's open 11, close 12
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 12 / 11])
