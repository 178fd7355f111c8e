"""An LLM mode's confidence calibrated on its own earlier outcomes (walk-forward, at scoring time)."""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from stockdesk.evaluation.application.mode_calibration import calibrate_mode
from stockdesk.evaluation.domain.dtos import EvaluationConfig

DAYS = pd.bdate_range("2021-01-04", periods=400)
SYMBOLS = [f"S{i}" for i in range(10)]


def llm_points(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Points every 5 days whose BUY/SELL calls are right 70% of the time, and their bars."""
    rng = np.random.default_rng(seed)
    rows = []
    for position in range(0, 380, 5):
        for symbol in SYMBOLS:
            action = rng.choice(["BUY", "SELL"])
            right = rng.random() < 0.7
            up = (action == "BUY") == right
            rows.append(
                {"as_of": DAYS[position].date(), "symbol": symbol, "action": action, "confidence": 0.8,
                 "exc_5": 0.02 if up else -0.02, "exit_5": DAYS[position + 5]}
            )  # fmt: skip
    bars = pd.DataFrame(
        [
            {"symbol": s, "trade_date": d, "open": 10.0, "close": 10.0, "volume": 1e6}
            for s in SYMBOLS
            for d in DAYS
        ]
    )
    return pd.DataFrame(rows), bars


def test_probabilities_come_from_earlier_outcomes_only_and_follow_the_calls() -> None:
    frame, bars = llm_points(5)
    config = EvaluationConfig(
        symbols=SYMBOLS, start=date(2021, 1, 4), end=date(2022, 6, 1), every=5, horizons=[5]
    )
    result = calibrate_mode(frame, bars, config)
    p = pd.Series([x["5"] for x in result["probability_up"]])
    n = pd.Series([c["5"]["n"] for c in result["calibration"]])
    assert p[n < 100].isna().all() and p[n >= 100].notna().all()  # uncalibrated until 100 outcomes
    first = pd.to_datetime(result["as_of"]).min()
    assert n[pd.to_datetime(result["as_of"]) == first].eq(0).all()  # nothing known on the first date
    late = result[(n >= 300).to_numpy()]
    probability = pd.Series([x["5"] for x in late["probability_up"]], index=late.index)
    assert (
        probability[late["action"] == "BUY"].mean()
        > 0.55
        > 0.45
        > probability[late["action"] == "SELL"].mean()
    )
