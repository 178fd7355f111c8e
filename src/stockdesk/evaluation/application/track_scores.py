"""The track record's figures for one set of ledger entries and one horizon, with intervals.

Reused from evaluate (the same definitions): `summarise` (matured count, hit rate, mean excess,
rank IC over dates with 5+ symbols, action stats), `calibration` (Brier, Brier skill, ECE,
reliability table), `expert_attribution`, and the moving-block date bootstrap (`moving_block_indices`,
`date_counts`, the `HitRate` / `MeanExcess` per-date sums).

Calibration uses the verdict's own `probability_up` only. An entry without one is *uncalibrated*:
it counts in the hit rate, returns and rank IC, and is left out of Brier, Brier skill and ECE (the
counts of both kinds are reported beside them). Confidence is not turned into a probability here.

Intervals: 95% percentile intervals of the statistic itself over block-bootstrap resamples of the
entries' as_of dates (blocks of ~n^(1/3) consecutive dates, seeded), None with fewer than 2 dates.
Brier skill per resample = 1 - Brier / (obar (1 - obar)) from per-date sums.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from stockdesk.evaluation.application.scores import (
    HitRate,
    MeanExcess,
    calibration,
    date_counts,
    default_block,
    expert_attribution,
    summarise,
)
from stockdesk.evaluation.application.scores._common import date_array, float_array, folded_labels
from stockdesk.evaluation.application.scores.bootstrap import moving_block_indices
from stockdesk.evaluation.domain.track import TrackConfig

ALPHA = 0.05


def _interval(values: np.ndarray) -> list[float] | None:
    finite = values[np.isfinite(values)]
    if len(finite) == 0:
        return None
    low, high = np.percentile(finite, [100 * ALPHA / 2, 100 * (1 - ALPHA / 2)])
    return [float(low), float(high)]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.full(np.shape(num), np.nan), where=den > 0)


def _counts(days: np.ndarray, config: TrackConfig) -> np.ndarray | None:
    if len(days) < 2:
        return None
    block = max(1, min(default_block(len(days)), len(days)))
    rng = np.random.default_rng(config.bootstrap_seed)
    return date_counts(moving_block_indices(len(days), block, config.bootstrap_resamples, rng), len(days))


def _skill_interval(points: pd.DataFrame, days: np.ndarray, counts: np.ndarray) -> list[float] | None:
    p = float_array(points["probability_up"])
    excess = float_array(points["excess_return"])
    keep = np.isfinite(p) & np.isfinite(excess)
    if not keep.any():
        return None
    o = (excess[keep] > 0).astype(float)
    day = pd.Series(date_array(points["as_of"])[keep])
    frame = pd.DataFrame({"sq": (p[keep] - o) ** 2, "o": o, "n": 1.0}).groupby(day.to_numpy()).sum()
    frame = frame.reindex(days, fill_value=0.0)
    n, o_sum, sq = (
        counts @ frame["n"].to_numpy(),
        counts @ frame["o"].to_numpy(),
        counts @ frame["sq"].to_numpy(),
    )
    obar = _ratio(o_sum, n)
    return _interval(1.0 - _ratio(_ratio(sq, n), obar * (1.0 - obar)))


def horizon_scores(points: pd.DataFrame, config: TrackConfig) -> dict[str, Any]:
    """`points`: as_of, symbol, action, confidence, probability_up, forward_return, excess_return."""
    summary = summarise(points, hold_band=config.hold_band)
    matured = points[np.isfinite(float_array(points["forward_return"]))]
    prob = float_array(matured["probability_up"])
    excess = float_array(matured["excess_return"])
    scored = np.isfinite(prob) & np.isfinite(excess)
    cal = calibration(prob[scored], excess[scored] > 0)
    out: dict[str, Any] = {
        "matured": summary.count,
        "pending": summary.missing,
        "hit_rate": summary.hit_rate,
        "mean_excess": summary.mean_excess,
        "rank_ic": summary.rank_ic.model_dump(mode="json", exclude={"per_date"}),
        "actions": {k: v.model_dump(mode="json") for k, v in summary.actions.items()},
        "calibrated": int(scored.sum()),
        "uncalibrated": int(len(matured) - np.isfinite(prob).sum()),
        "brier": cal.brier,
        "brier_skill": cal.brier_skill,
        "ece": cal.ece,
        "reliability": [row.model_dump(mode="json") for row in cal.table],
        "intervals": {"hit_rate": None, "mean_excess": None, "brier_skill": None},
    }
    days = np.unique(date_array(matured["as_of"])) if len(matured) else np.array([], "datetime64[ns]")
    counts = _counts(days, config)
    if counts is not None:
        for name, statistic in (("hit_rate", HitRate(config.hold_band)), ("mean_excess", MeanExcess())):
            num, den = statistic.per_date(matured, days)
            out["intervals"][name] = _interval(_ratio(counts @ num, counts @ den))
        out["intervals"]["brier_skill"] = _skill_interval(matured, days, counts)
    return out


def _stance_hit_interval(rows: pd.DataFrame, config: TrackConfig) -> list[float] | None:
    """The interval of one expert's stance hit rate (attribution's rule: bullish up, bearish down,
    neutral left out), resampling its dates like the desk's own figures."""
    ret = float_array(rows["forward_return"])
    stance = folded_labels(rows["stance"], str.lower)
    keep = np.isfinite(ret) & (stance != "neutral")
    if not keep.any():
        return None
    hits = np.where(stance[keep] == "bullish", ret[keep] > 0, ret[keep] < 0).astype(float)
    days = date_array(rows["as_of"])[keep]
    grouped = pd.Series(hits).groupby(days).agg(["sum", "count"])
    counts = _counts(grouped.index.to_numpy(), config)
    if counts is None:
        return None
    return _interval(_ratio(counts @ grouped["sum"].to_numpy(), counts @ grouped["count"].to_numpy()))


def expert_scores(voices: pd.DataFrame, frame: pd.DataFrame, config: TrackConfig) -> dict[str, Any]:
    """Per horizon, each expert's stance hit rate (with its interval) and rank IC (`voices`: row,
    expert, stance, confidence; `row` indexes `frame`)."""
    if voices.empty:
        return {str(h): [] for h in config.horizons}
    out = {}
    index = voices["row"].to_numpy(dtype=int)
    for h in config.horizons:
        rows = voices.assign(
            as_of=frame["as_of"].to_numpy()[index],
            forward_return=frame[f"fwd_{h}"].to_numpy()[index],
            excess_return=frame[f"exc_{h}"].to_numpy()[index],
        )
        by_expert = dict(tuple(rows.groupby("expert", sort=True)))
        out[str(h)] = [
            {
                **a.model_dump(mode="json"),
                "hit_rate_interval": _stance_hit_interval(by_expert[a.expert], config),
            }
            for a in expert_attribution(rows)
        ]
    return out


def cost_scores(frame: pd.DataFrame) -> dict[str, Any]:
    """Cost per verdict beside the skill: tokens and LLM calls always, USD where priced."""
    n = len(frame)
    priced = frame["cost_usd"].dropna()
    return {
        "verdicts": n,
        "tokens_per_verdict": float(frame["tokens"].mean()) if n else None,
        "llm_calls_per_verdict": float(frame["llm_calls"].mean()) if n else None,
        "usd_per_verdict": float(priced.mean()) if len(priced) else None,
        "priced": len(priced),
    }
