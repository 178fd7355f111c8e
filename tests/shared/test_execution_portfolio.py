"""Follow-the-verdict portfolio: weights from filled BUYs, scaled to 1, executed at the next open."""

from __future__ import annotations

import pandas as pd
import pytest

from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.execution import follow_portfolio, simulate, verdict_weights

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
    sim = follow_portfolio(CLOSE, OPEN, targets, 0.001, pd.Series({"A": 0.003, "B": 0.003}))
    # d0's 0.6 + 0.6 = 1.2 is scaled to 0.5 + 0.5; bought at d1's open (cost 0.001 each way in)
    expected = simulate(
        CLOSE,
        pd.DataFrame({"A": [0.5, 0.0], "B": [0.5, 1.0]}, index=[DAYS[0], DAYS[2]]),
        stop_loss=None,
        buy_cost=pd.Series(0.001, index=["A", "B"]),
        sell_cost=pd.Series(0.003, index=["A", "B"]),
        execution_price=OPEN,
    )
    assert sim.nav.tolist() == pytest.approx(expected.nav.tolist(), abs=1e-15)
    # d1 by hand: 0.999 at the open, then 0.5 * 11/10 + 0.5 * 19/20 = 1.025
    assert sim.nav.iloc[1] == pytest.approx(0.999 * 1.025)
    assert list(sim.turnover.index) == [DAYS[1], DAYS[3]]


def test_a_weekend_decision_executes_at_monday_open_and_early_ones_are_dropped() -> None:
    close = pd.DataFrame(
        {"A": [10.0, 11.0, 12.0]}, index=pd.to_datetime(["2024-01-04", "2024-01-05", "2024-01-08"])
    )
    opens = pd.DataFrame({"A": [10.0, 10.5, 11.0]}, index=close.index)
    targets = pd.DataFrame(
        {"A": [1.0, 0.5, 1.0]}, index=pd.to_datetime(["2024-01-01", "2024-01-06", "2024-01-07"])
    )  # before the panel (dropped); Saturday and Sunday (both Friday's; Sunday's wins)
    sim = follow_portfolio(close, opens, targets, 0.0, 0.0)
    assert sim.rebalances == 1
    assert list(sim.turnover.index) == [pd.Timestamp("2024-01-08")]
    # all in at Monday's open 11, close 12
    assert sim.nav.tolist() == pytest.approx([1.0, 1.0, 12 / 11])
