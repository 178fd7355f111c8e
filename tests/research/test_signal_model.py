"""The walk-forward signal model on synthetic panels (300 symbols x 750 trading days).

Planted skill is found with the right sign, pure noise is not (|t| < 2 for 19 of 20 seeds), and the
fit and calibration at a date D read no label that ends after D: perturbing every return after D
leaves the scores and probabilities at D byte-identical.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from stockdesk.evaluation.application.scores import rank_ic
from stockdesk.research.application import rank_normalise
from stockdesk.research.application.signal_model.calibration import (
    SHRINK,
    CalibrationSettings,
    calibrate_walk_forward,
    isotonic,
)
from stockdesk.research.application.signal_model.walk_forward import FitSettings, known_dates, walk_forward

SYMBOLS, DAYS, STEP, HORIZON = 300, 750, 5, 5
FEATURES = ["f1", "f2", "f3", "f4"]
CALENDAR = pd.bdate_range("2018-01-01", periods=DAYS).to_numpy(dtype="datetime64[ns]")
GRID = CALENDAR[: DAYS - HORIZON - 1 : STEP]


def no_prior(market: str, name: str) -> float:
    return 0.0


def factor_panel(rng: np.random.Generator) -> pd.DataFrame:
    dates = np.repeat(GRID, SYMBOLS)
    symbols = np.tile([f"S{i:03d}" for i in range(SYMBOLS)], len(GRID))
    frame = pd.DataFrame({"date": dates, "symbol": symbols, "market": "CN"})
    for name in FEATURES:
        frame[name] = rng.standard_normal(len(frame))
    return frame


def labels_with_ic(panel: pd.DataFrame, rng: np.random.Generator, ic: float) -> pd.DataFrame:
    """A label whose correlation with f1 is `ic` on every date; exit = the HORIZON-th day after."""
    noise = rng.standard_normal(len(panel))
    label = ic * panel["f1"].to_numpy() + np.sqrt(1 - ic**2) * noise
    position = np.searchsorted(CALENDAR, panel["date"].to_numpy(dtype="datetime64[ns]"))
    return pd.DataFrame(
        {
            "date": panel["date"],
            "symbol": panel["symbol"],
            "label": label * 0.02,
            "exit": CALENDAR[position + HORIZON],
        }
    )


def model_ic(panel: pd.DataFrame, labels: pd.DataFrame) -> tuple[float | None, dict[str, float]]:
    ranked = rank_normalise(panel, FEATURES)
    result = walk_forward(ranked, labels, CALENDAR, FEATURES, no_prior, FitSettings(horizon=HORIZON))
    joined = result.scores.merge(labels, on=["date", "symbol"])
    fitted = joined[joined["date"].map(lambda d: result.fits[pd.Timestamp(d)].source == "fitted")]
    ic = rank_ic(fitted["date"], fitted["score"], fitted["label"])
    last = result.fits[max(result.fits)]
    return ic.t, last.weights


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_planted_factor_with_rank_ic_005_is_recovered_with_the_right_sign(sign: float) -> None:
    rng = np.random.default_rng(7)
    panel = factor_panel(rng)
    labels = labels_with_ic(panel, rng, 0.05 * sign)
    t, weights = model_ic(panel, labels)
    assert t is not None and t > 2, f"walk-forward rank IC t {t}"
    assert np.sign(weights["f1"]) == sign
    assert abs(weights["f1"]) > max(abs(weights[f]) for f in FEATURES[1:])


def test_pure_noise_gives_no_skill_for_at_least_19_of_20_seeds() -> None:
    quiet = 0
    for seed in range(20):
        rng = np.random.default_rng(1000 + seed)
        panel = factor_panel(rng)
        t, _ = model_ic(panel, labels_with_ic(panel, rng, 0.0))
        quiet += t is None or abs(t) < 2
    assert quiet >= 19, f"only {quiet} of 20 noise panels had |t| < 2"


def labels_from_returns(returns: np.ndarray, panel: pd.DataFrame) -> pd.DataFrame:
    """Excess return over the next HORIZON days (entered the day after the date) from daily returns."""
    growth = np.cumprod(1 + returns, axis=0)
    rows = []
    for position in np.searchsorted(CALENDAR, GRID):
        window = growth[position + HORIZON] / growth[position] - 1
        rows.append(window - window.mean())
    label = np.concatenate(rows)
    position = np.searchsorted(CALENDAR, panel["date"].to_numpy(dtype="datetime64[ns]"))
    return pd.DataFrame(
        {
            "date": panel["date"],
            "symbol": panel["symbol"],
            "label": label,
            "exit": CALENDAR[position + HORIZON],
        }
    )


def scores_and_probabilities(panel: pd.DataFrame, returns: np.ndarray, day: pd.Timestamp) -> pd.DataFrame:
    ranked = rank_normalise(panel[panel["date"] <= day], FEATURES)  # factors: nothing after D
    labels = labels_from_returns(returns, panel)
    settings = FitSettings(horizon=HORIZON)
    result = walk_forward(ranked, labels, CALENDAR, FEATURES, no_prior, settings)
    known = known_dates(labels, CALENDAR, settings.embargo)
    calibrated = calibrate_walk_forward(result.scores, labels, known, CalibrationSettings(), [day])
    return result.scores[result.scores["date"] == day].merge(calibrated, on=["date", "symbol"])


def test_the_fit_at_d_uses_no_label_that_ends_after_d() -> None:
    rng = np.random.default_rng(3)
    panel = factor_panel(rng)
    returns = rng.normal(0, 0.02, size=(DAYS, SYMBOLS))
    returns[:, 0] += 0.003  # one symbol drifts up: the fit and calibration have something to learn
    day = pd.Timestamp(GRID[100])
    before = scores_and_probabilities(panel, returns, day)
    perturbed = returns.copy()
    after = np.searchsorted(CALENDAR, np.datetime64(day, "ns"), side="right")
    perturbed[after:] = rng.normal(0, 0.05, size=perturbed[after:].shape)  # every return after D
    again = scores_and_probabilities(panel, perturbed, day)
    assert before["probability_up"].notna().all()
    pd.testing.assert_frame_equal(before, again, check_exact=True)
    # the perturbation did reach labels the fit must not read
    assert not np.array_equal(
        labels_from_returns(returns, panel)["label"], labels_from_returns(perturbed, panel)["label"]
    )


def test_isotonic_fit_is_increasing_and_pools_violators() -> None:
    fitted = isotonic(np.arange(5.0), np.array([0.1, 0.3, 0.2, 0.6, 0.5]), np.ones(5))
    assert np.all(np.diff(fitted) >= 0)
    np.testing.assert_allclose(fitted, [0.1, 0.25, 0.25, 0.55, 0.55])


def _perfect_panel(symbols: int, dates: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """A score that ranks every outcome right: symbols x dates pairs, each known the next day."""
    rng = np.random.default_rng(5)
    days = pd.bdate_range("2021-01-04", periods=dates + 1)
    label = rng.normal(0, 0.02, size=(dates, symbols))
    label -= label.mean(axis=1, keepdims=True)  # excess over the same symbols' index: sums to zero
    frame = pd.DataFrame(
        {
            "date": np.repeat(days[:-1], symbols),
            "symbol": np.tile([f"S{i}" for i in range(symbols)], dates),
            "label": label.ravel(),
        }
    )
    today = pd.DataFrame({"date": days[-1], "symbol": ["S0"], "label": [np.nan]})
    scores = pd.concat([frame, today], ignore_index=True).assign(score=lambda f: f["label"].fillna(0.05))
    known = pd.Series(list(days[1:]), index=days[:-1])
    return scores[["date", "symbol", "score"]], frame, known


def test_two_symbols_per_date_count_as_one_independent_outcome_each() -> None:
    """Two excess returns over their own two-symbol index are one outcome: 200 dates x 2 symbols
    weigh as m = 200, so a perfectly ranked top score maps to 1/2 + 1/2 x m / (m + SHRINK)."""
    scores, labels, known = _perfect_panel(2, 200)
    day = known.iloc[-1]
    row = calibrate_walk_forward(scores, labels, known, CalibrationSettings(), [day]).iloc[0]
    assert row["base_rate"] == 0.5  # one of each date's two symbols beat their index
    assert row["probability_up"] == pytest.approx(0.5 + 0.5 * 200 / (200 + SHRINK))
