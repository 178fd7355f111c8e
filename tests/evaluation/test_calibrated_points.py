"""evaluate --mode rules carries the signal model's calibrated probabilities and scores them honestly.

On a generated market in a real store: every point has probability_up and calibration per horizon,
the metrics carry ece, brier_skill (full-sample base rate) and brier_skill_walk_forward, the rank IC
has a bootstrap interval, every symbol is scored on the same calendar dates, and the one-sample
interval of a planted rank IC excludes zero while that of noise does not.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.application.scores import MeanRankIC, bootstrap_interval
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.evaluation.presentation.report import write_report
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.evaluation.market import populate, symbols

NAMES = symbols(8)


@pytest.fixture
def app(settings: Settings, database: Database) -> Iterator[AppContainer]:
    populate(database, NAMES)
    container = AppContainer(settings)
    yield container
    container.close()


def test_points_carry_calibrated_probabilities_and_metrics_their_skill(
    app: AppContainer, tmp_path: Path
) -> None:
    config = EvaluationConfig(
        symbols=NAMES, start=date(2022, 6, 1), end=date(2023, 12, 29), every=5, horizons=[5, 20]
    )
    data = json.loads(write_report(app.evaluation.service.run(config), tmp_path / "e.json").read_text())
    points = data["points"]
    assert all(
        set(p["probability_up"]) == {"5", "20"} and set(p["calibration"]) == {"5", "20"} for p in points
    )
    calibrated = [p for p in points if p["probability_up"]["20"] is not None]
    assert calibrated, "a year and a half of weekly labels calibrates"
    for p in calibrated:
        cal = p["calibration"]["20"]
        assert 0 <= p["probability_up"]["20"] <= 1 and cal["n"] >= 100
        assert date.fromisoformat(cal["fitted_to"]) < date.fromisoformat(
            p["as_of"]
        )  # known before the verdict
        expected = {"BUY": p["probability_up"]["20"], "SELL": 1 - p["probability_up"]["20"]}.get(p["action"])
        assert expected is None or p["confidence"] <= expected + 1e-4  # at most the bound cuts it
    by_date = pd.DataFrame(points).groupby("as_of")["symbol"].nunique()
    assert (by_date == len(NAMES)).mean() > 0.9  # one calendar: every symbol on the same dates
    for h in ("5", "20"):
        figures = data["metrics"]["rules"][h]
        assert {"ece", "brier_skill", "brier_skill_walk_forward", "uncalibrated"} <= set(figures)
        assert figures["brier_skill_walk_forward"] is not None
        assert {"low", "high", "observed"} <= set(figures["rank_ic"]["interval"])
    assert "Brier skill over the walk-forward base rate" in data["summary"]


def ranked_points(ic: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    days = np.repeat(pd.bdate_range("2020-01-01", periods=120, freq="W-FRI"), 50)
    signal = rng.standard_normal(len(days))
    excess = ic * signal + np.sqrt(1 - ic**2) * rng.standard_normal(len(days))
    return pd.DataFrame(
        {"as_of": days, "symbol": np.tile(np.arange(50), 120), "action": "HOLD", "confidence": 0.5,
         "probability": 0.5 + 0.1 * signal, "forward_return": excess, "excess_return": excess}
    )  # fmt: skip


def test_a_rank_ic_interval_excludes_zero_for_a_planted_signal_and_not_for_noise() -> None:
    planted = bootstrap_interval(ranked_points(0.2, 1), MeanRankIC(), resamples=500)
    noise = bootstrap_interval(ranked_points(0.0, 2), MeanRankIC(), resamples=500)
    assert planted.observed is not None and planted.observed > 0.1 and planted.distinguishable
    assert planted.low is not None and planted.low > 0
    assert noise.low is not None and noise.high is not None and noise.low <= 0 <= noise.high


def test_the_report_says_what_the_model_learned_per_factor(app: AppContainer) -> None:
    config = EvaluationConfig(
        symbols=NAMES, start=date(2022, 6, 1), end=date(2023, 12, 29), every=5, horizons=[20]
    )
    report = app.evaluation.service.run(config)
    learned = report.metrics["rules"]["20"]["model"]
    factors = {row["factor"]: row for row in learned["factors"]}
    assert {"ret_5d", "size", "earnings_yield", "roe_ttm", "profit_dedt_yoy"} <= set(factors)
    assert all(row["ic_dates"] > 0 for name, row in factors.items() if name.startswith(("ret_", "vol_")))
    over_time = learned["weights_over_time"]
    assert len(over_time["dates"]) == len(over_time["source"]) == len(over_time["weights"]["size"]) > 12
