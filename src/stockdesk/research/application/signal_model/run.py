"""One walk-forward run of the signal model over a universe: factors, labels, fits, calibration, action.

1. Calendar: the days any symbol of the universe traded (the market's trading calendar as the store
   knows it). The training grid is every GRID_STEP-th calendar day from LOOKBACK_YEARS before the
   first wanted date, plus the wanted dates themselves.
2. Factors ranked per date (`FactorService.ranked`), labels = forward excess returns by the one
   execution module (`shared.execution.excess_outcomes`: next-open entry, limits, suspensions).
3. Per horizon: `walk_forward` scores, `calibrate_walk_forward` probabilities; both see at date D
   only labels whose exit (plus the embargo) is on or before D.
4. Action at the verdict horizon (VERDICT_HORIZON if asked, else the longest asked): with a
   calibrated probability, BUY when the expected excess return beats the round-trip cost and
   P(up) > 0.5, SELL when it is below minus that cost and P(up) < 0.5, else HOLD; the confidence is
   the calibrated probability that the action is right (P(up), 1 - P(up), or the past share of
   |excess| within the hold band for HOLD). Uncalibrated: the score's sign beyond PRIOR_ACT decides
   and the confidence is 0.5 (HOLD: the past hold share, at most UNCALIBRATED_CAP), said as
   `uncalibrated`.
5. Contributions: the verdict horizon's weights x ranked factors summed per expert group (price ->
   technical, value and size -> valuation, quality and growth -> financial): which evidence pushed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.backtest.application import cost_model, excess_outcomes, stamp_duty, trading_bars
from stockdesk.research.application.factors import FACTOR_BY_NAME, FACTOR_NAMES, FactorService
from stockdesk.research.application.signal_model.calibration import (
    CalibrationSettings,
    calibrate_walk_forward,
)
from stockdesk.research.application.signal_model.diagnostics import factor_report
from stockdesk.research.application.signal_model.walk_forward import (
    PRIOR_SCALE,
    FitSettings,
    known_dates,
    walk_forward,
)

MODEL_VERSION = 12  # bump when the model or its calibration changes: stored evaluations then recompute
GRID_STEP = 5
LOOKBACK_YEARS = 3
VERDICT_HORIZON = 20
PRIOR_ACT = 0.01  # a prior score beyond +-1 rank-percent of expected excess rank acts
UNCALIBRATED_CAP = 0.6
MAX_ENTRY_GAP = 10
PER_HORIZON = (
    "score", "probability_up", "expected_excess", "hold_share", "base_rate", "calibration_n",
    "calibration_ece", "fitted_to",
)  # fmt: skip
EXPERT_OF_GROUP = {
    "price": "technical_analyst",
    "value": "valuation_modeler",
    "size": "valuation_modeler",
    "quality": "financial_auditor",
    "growth": "financial_auditor",
}


@dataclass(frozen=True)
class ModelInputs:
    universe: Sequence[str]
    dates: Sequence[date]
    horizons: Sequence[int]
    bars: pd.DataFrame
    """long raw bars of the universe through the newest stored day (labels need the days after)"""
    markets: Mapping[str, str]
    limits: object
    """a limit lookup for the fills (`shared.execution.limit_lookup`)"""
    levels: pd.DataFrame
    """the benchmark's open/close levels (`shared.execution.index_levels`)"""
    hold_band: float = 0.03
    slippage: float = 0.0005


def verdict_horizon(horizons: Sequence[int]) -> int:
    return VERDICT_HORIZON if VERDICT_HORIZON in horizons else max(horizons)


def trading_calendar(bars: pd.DataFrame) -> np.ndarray:
    days = trading_bars(bars)["trade_date"]
    return np.unique(pd.to_datetime(days).to_numpy(dtype="datetime64[ns]"))


def training_grid(calendar: np.ndarray, dates: Sequence[date]) -> list[pd.Timestamp]:
    first = pd.Timestamp(min(dates)) - pd.DateOffset(years=LOOKBACK_YEARS)
    last = pd.Timestamp(max(dates))
    inside = calendar[(calendar >= np.datetime64(first)) & (calendar <= np.datetime64(last))]
    grid = {pd.Timestamp(d) for d in inside[::GRID_STEP]}
    return sorted(grid | {pd.Timestamp(d) for d in dates})


def round_trip_cost(market: str, day: pd.Timestamp, slippage: float) -> float:
    model = cost_model(market)
    duty = float(stamp_duty([day])[0]) if market == "CN" else 0.0
    return model.buy + model.sell + duty + 2 * slippage


def round_trip_costs(markets: pd.Series, dates: pd.Series, slippage: float) -> np.ndarray:
    """`round_trip_cost` of every row at once (a model per market, the duty by date)."""
    market = markets.astype(str).to_numpy()
    fixed = np.zeros(len(market))
    for name in np.unique(market):
        model = cost_model(name)
        fixed[market == name] = model.buy + model.sell
    duty = np.where(market == "CN", stamp_duty(pd.DatetimeIndex(dates)), 0.0)
    return fixed + duty + 2 * slippage


def run_model(factors: FactorService, inputs: ModelInputs) -> pd.DataFrame:
    """The model's rows (see `run_model_with_report`)."""
    return run_model_with_report(factors, inputs)[0]


def run_model_with_report(factors: FactorService, inputs: ModelInputs) -> tuple[pd.DataFrame, dict[str, Any]]:
    """One row per (date, symbol) of the wanted dates (see the module docstring for the columns:
    per horizon h `score_h`, `probability_up_h`, `expected_excess_h`, `base_rate_h`, `calibration_n_h`,
    `calibration_ece_h`, `fitted_to_h`, `model_h`, `pairs_h`; then `action`, `confidence`,
    `calibrated` and one `contribution_<expert>` per expert group), and per horizon what the model
    learned (`diagnostics.factor_report`: each factor's weight over time and its own rank IC)."""
    calendar = trading_calendar(inputs.bars)
    grid = training_grid(calendar, inputs.dates)
    ranked = factors.ranked(list(inputs.universe), [d.date() for d in grid])
    ranked = ranked[ranked[list(FACTOR_NAMES)].notna().any(axis=1)].reset_index(drop=True)
    points = ranked[["date", "symbol"]].rename(columns={"date": "as_of"}).assign(action="HOLD")
    outcomes = excess_outcomes(inputs.bars, points, list(inputs.horizons), inputs.limits, inputs.levels)
    outcomes = usable_labels(outcomes, ranked["date"], calendar, inputs.horizons)
    wanted = sorted({pd.Timestamp(d) for d in inputs.dates})
    out = ranked.loc[ranked["date"].isin(wanted), ["date", "symbol", "market"]].reset_index(drop=True)
    main = verdict_horizon(inputs.horizons)
    report: dict[str, Any] = {}
    for h in inputs.horizons:
        labels = pd.DataFrame(
            {
                "date": ranked["date"],
                "symbol": ranked["symbol"],
                "label": outcomes[f"exc_{h}"].to_numpy(),
                "exit": outcomes[f"exit_{h}"].to_numpy(),
            }
        )
        settings = FitSettings(horizon=h)
        model = walk_forward(ranked, labels, calendar, FACTOR_NAMES, _prior, settings)
        known = known_dates(labels, calendar, settings.embargo)
        calibrated = calibrate_walk_forward(
            model.scores,
            labels,
            known,
            CalibrationSettings(hold_band=inputs.hold_band, overlap=min(1.0, GRID_STEP / h)),
            grid,
        )
        out = _with_horizon(out, model.scores, calibrated, model.fits, h)
        report[str(h)] = factor_report(ranked, labels, model.fits, FACTOR_NAMES, wanted)
        if h == main:
            out = _with_contributions(out, ranked, model.fits)
    return _with_actions(out, main, inputs.slippage), report


def usable_labels(
    outcomes: pd.DataFrame, dates: pd.Series, calendar: np.ndarray, horizons: Sequence[int]
) -> pd.DataFrame:
    """`outcomes` with a label (exc_h and exit_h) blanked where it does not describe the h days after
    its date: entry more than MAX_ENTRY_GAP trading days later (not trading yet, or suspended), or
    an exit more than 2h + MAX_ENTRY_GAP days after the entry (a long suspension inside)."""
    out = outcomes.copy()
    position = np.searchsorted(calendar, pd.to_datetime(dates).to_numpy(dtype="datetime64[ns]"))
    entry = np.searchsorted(calendar, pd.to_datetime(out["entry_date"]).to_numpy(dtype="datetime64[ns]"))
    late_entry = out["entry_date"].isna().to_numpy() | (entry - position > MAX_ENTRY_GAP)
    for h in horizons:
        exit_ = np.searchsorted(calendar, pd.to_datetime(out[f"exit_{h}"]).to_numpy(dtype="datetime64[ns]"))
        bad = late_entry | out[f"exit_{h}"].isna().to_numpy() | (exit_ - entry > 2 * h + MAX_ENTRY_GAP)
        out.loc[bad, f"exc_{h}"] = np.nan
        out.loc[bad, f"exit_{h}"] = pd.NaT
    return out


def _prior(market: str, name: str) -> float:
    return FACTOR_BY_NAME[name].prior(market)


def _with_horizon(
    out: pd.DataFrame, scores: pd.DataFrame, calibrated: pd.DataFrame, fits: dict, h: int
) -> pd.DataFrame:
    merged = out.merge(scores, on=["date", "symbol"], how="left").merge(
        calibrated, on=["date", "symbol"], how="left"
    )
    source = merged["date"].map(
        lambda d: fits[pd.Timestamp(d)].source if pd.Timestamp(d) in fits else "prior"
    )
    pairs = merged["date"].map(lambda d: fits[pd.Timestamp(d)].pairs if pd.Timestamp(d) in fits else 0)
    renamed = {c: f"{c}_{h}" for c in PER_HORIZON}
    return merged.rename(columns=renamed).assign(
        **{f"model_{h}": source.to_numpy(), f"pairs_{h}": pairs.to_numpy()}
    )


def _with_contributions(out: pd.DataFrame, ranked: pd.DataFrame, fits: dict) -> pd.DataFrame:
    rows = out[["date", "symbol", "market"]].merge(ranked, on=["date", "symbol", "market"], how="left")
    totals = {expert: np.zeros(len(rows)) for expert in dict.fromkeys(EXPERT_OF_GROUP.values())}
    # one weight per (date, market) pair, looked up once, then spread over that pair's rows
    pairs = pd.MultiIndex.from_arrays([pd.to_datetime(rows["date"]), rows["market"].astype(str)])
    codes, uniques = pd.factorize(pairs)
    for name in FACTOR_NAMES:
        factor = FACTOR_BY_NAME[name]
        x = np.nan_to_num(rows[name].to_numpy(dtype=float), nan=0.0)
        weight = np.array([
            fits[d].weights.get(name, 0.0) if fits[d].source == "fitted" else factor.prior(m) * PRIOR_SCALE
            for d, m in uniques
        ])  # fmt: skip
        totals[EXPERT_OF_GROUP[factor.group]] += (weight[codes] if len(weight) else 0.0) * x
    return out.assign(**{f"contribution_{e}": v for e, v in totals.items()})


def _with_actions(out: pd.DataFrame, h: int, slippage: float) -> pd.DataFrame:
    p = out[f"probability_up_{h}"].to_numpy(dtype=float)
    expected = out[f"expected_excess_{h}"].to_numpy(dtype=float)
    hold = out[f"hold_share_{h}"].to_numpy(dtype=float)
    score = out[f"score_{h}"].to_numpy(dtype=float)
    cost = round_trip_costs(out["market"], out["date"], slippage)
    calibrated = np.isfinite(p)
    buy = np.where(calibrated, (expected > cost) & (p > 0.5), score > PRIOR_ACT)
    sell = np.where(calibrated, (expected < -cost) & (p < 0.5), score < -PRIOR_ACT)
    action = np.where(buy, "BUY", np.where(sell, "SELL", "HOLD"))
    confidence = np.where(buy, p, np.where(sell, 1 - p, hold))
    held = np.minimum(UNCALIBRATED_CAP, np.where(np.isfinite(hold), hold, 0.5))
    uncalibrated = np.where(buy | sell, 0.5, held)  # no calibrated odds for a direction: even
    confidence = np.where(calibrated, confidence, uncalibrated)
    return out.assign(action=action, confidence=np.round(confidence, 4), calibrated=calibrated, cost=cost)
