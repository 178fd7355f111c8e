"""An LLM mode's probability: its voices weighed beside the signal model by the walk-forward fit."""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from stockdesk.evaluation.application.mode_calibration import calibrate_mode
from stockdesk.evaluation.domain.dtos import EvaluationConfig

DAYS = pd.bdate_range("2021-01-04", periods=800)
SYMBOLS = [f"S{i}" for i in range(20)]
USEFUL, NOISE = "valuation_modeler", "technical_analyst"


def llm_points(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Points every 5 days: the valuation expert's stance carries the sign of the excess return 70%
    of the time, the technical expert's is a coin; the signal model knows nothing (uncalibrated)."""
    rng = np.random.default_rng(seed)
    rows = []
    for position in range(0, 780, 5):
        for symbol in SYMBOLS:
            up = rng.random() < 0.5
            useful = (
                ("bullish" if up else "bearish") if rng.random() < 0.7 else ("bearish" if up else "bullish")
            )
            noise = rng.choice(["bullish", "bearish", "neutral"])
            rows.append(
                {"as_of": DAYS[position].date(), "symbol": symbol, "action": "HOLD", "confidence": 0.5,
                 "experts": {USEFUL: {"stance": useful, "confidence": 0.8},
                             NOISE: {"stance": noise, "confidence": 0.8}},
                 "exc_5": (0.02 if up else -0.02) * rng.uniform(0.5, 1.5), "exit_5": DAYS[position + 5]}
            )  # fmt: skip
    frame = pd.DataFrame(rows)
    baseline = frame[["as_of", "symbol"]].assign(probability_up=[{} for _ in range(len(frame))])
    bars = pd.DataFrame(
        [
            {"symbol": s, "trade_date": d, "open": 10.0, "close": 10.0, "volume": 1e6}
            for s in SYMBOLS
            for d in DAYS
        ]
    )
    return frame, baseline, bars


def test_a_useful_voice_earns_a_weight_a_noisy_one_does_not_and_probabilities_follow() -> None:
    frame, baseline, bars = llm_points(5)
    config = EvaluationConfig(
        symbols=SYMBOLS, start=date(2021, 1, 4), end=date(2024, 1, 1), every=5, horizons=[5],
        experts=[USEFUL, NOISE],
    )  # fmt: skip
    result, learned = calibrate_mode(frame, baseline, bars, config)
    factors = {row["factor"]: row for row in learned["5"]["factors"]}
    assert factors[USEFUL]["weight"] > 0 and factors[USEFUL]["ic_mean"] > 0.2
    assert abs(factors[NOISE]["weight"]) < factors[USEFUL]["weight"] / 5
    n = pd.Series([c["5"]["n"] for c in result["calibration"]])
    p = pd.Series([x["5"] for x in result["probability_up"]])
    assert p[n < 100].isna().all()  # uncalibrated until 100 known outcomes
    first = pd.to_datetime(result["as_of"]) == pd.to_datetime(result["as_of"]).min()
    assert n[first.to_numpy()].eq(0).all()  # nothing is known on the first date
    late = (n >= 1000).to_numpy()
    bullish = np.array([v[USEFUL]["stance"] == "bullish" for v in result["experts"]])
    assert p[late & bullish].mean() > 0.55 > 0.45 > p[late & ~bullish].mean()
