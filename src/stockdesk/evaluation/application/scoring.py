"""From verdicts to outcomes and figures: fills, forward and excess returns, metrics, portfolios.

- Outcomes come from `shared.execution` (T+1 open entry, limit and suspension rules, adjusted
  forward returns); the benchmark return of a point is the benchmark index's over the point's own
  window (entry open to the h-th day's close): a stored symbol, or the equal-weight universe.
- Every verdict set (the mode, the rules baseline, always-HOLD, buy-and-hold) is scored alike,
  per horizon: over all points, over the points after the knowledge cutoff (the leakage window),
  and over benchmark-up and benchmark-down months (the month of the verdict's date).
- The bootstrap compares each set with the rules baseline on the same dates: hit rate, mean rank
  IC, and the mean excess return of the points each side bought (over all points both sides have
  the same mean, so the choice of what to buy is what can differ).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.backtest.application import (
    ExecutionRules,
    cost_frames,
    excess_outcomes,
    follow_portfolio,
    index_levels,
    limit_lookup,
    performance,
    strategy_metrics,
    trading_panel,
    verdict_weights,
    zero_costs,
)
from stockdesk.evaluation.application.scores import (
    HitRate,
    MeanExcess,
    MeanRankIC,
    bootstrap_difference,
    bootstrap_interval,
    expert_attribution,
    summarise,
)
from stockdesk.evaluation.domain.dtos import CalibrationInfo, EvaluationConfig, EvaluationPoint, ExpertVoice
from stockdesk.evaluation.domain.metrics import HorizonMetrics
from stockdesk.evaluation.domain.ports import SecurityInfo

RULES_BASELINE, ALWAYS_HOLD, BUY_AND_HOLD = "rules_baseline", "always_hold", "buy_and_hold"
SUBSETS = ("after_cutoff", "benchmark_up", "benchmark_down")


def outcomes(
    verdicts: pd.DataFrame,
    bars: pd.DataFrame,
    securities: Mapping[str, SecurityInfo],
    levels: pd.DataFrame,
    horizons: list[int],
) -> pd.DataFrame:
    """`verdicts` (symbol, as_of, action, confidence, position_percent, ...) joined with entry,
    fill, forward returns `fwd_<h>` and excess returns `exc_<h>` over the benchmark levels."""
    names = {s: info.name for s, info in securities.items()}
    fills = excess_outcomes(
        bars, verdicts[["symbol", "as_of", "action"]], horizons, limit_lookup(names), levels
    )
    columns = [
        "entry_date", "entry_price", "filled", *[f"{k}_{h}" for k in ("fwd", "exc", "exit") for h in horizons]
    ]  # fmt: skip
    return verdicts.join(fills[columns])


def benchmark_levels(bars: pd.DataFrame, universe: list[str], benchmark: str | None) -> pd.DataFrame:
    return index_levels(bars, [benchmark] if benchmark else universe)


def month_regimes(levels: pd.DataFrame) -> pd.Series:
    """Month (Period) -> True when the benchmark rose over it (last close vs the month before's)."""
    closes = levels["close"].groupby(levels.index.to_period("M")).last()
    change = closes.pct_change()
    return (change > 0).where(change.notna())


def horizon_frame(frame: pd.DataFrame, h: int) -> pd.DataFrame:
    """One horizon's points for `summarise`; `probability` is the verdict's calibrated P(up) at h
    (NaN: uncalibrated) when the set carries probabilities, else absent (implied by the action)."""
    out = pd.DataFrame(
        {
            "as_of": frame["as_of"],
            "symbol": frame["symbol"],
            "action": frame["action"],
            "confidence": frame["confidence"],
            "forward_return": frame[f"fwd_{h}"],
            "excess_return": frame[f"exc_{h}"],
        }
    )
    key = str(h)
    if "calibration" in frame:
        out["base_rate"] = [_base_rate(c, key) for c in frame["calibration"]]
    if "probability_up" in frame and any(key in (p or {}) for p in frame["probability_up"]):
        out["probability"] = [
            np.nan if (p or {}).get(key) is None else p[key] for p in frame["probability_up"]
        ]
    return out


def _base_rate(calibration: Any, key: str) -> float:
    found = (calibration or {}).get(key) or {}
    value = found.get("base_rate") if isinstance(found, dict) else None
    return np.nan if value is None else float(value)


def headline(metrics: HorizonMetrics) -> dict[str, Any]:
    """The figures a reader compares first (the JSON contract names them)."""
    ic, cal = metrics.rank_ic, metrics.calibration
    return {
        "count": metrics.count,
        "hit_rate": metrics.hit_rate,
        "mean_excess": metrics.mean_excess,
        "rank_ic": {
            "mean": ic.mean,
            "icir": ic.icir,
            "t": ic.t,
            "positive_share": ic.positive_share,
            "dates": ic.dates,
        },
        "brier": cal.brier,
        "brier_skill": cal.brier_skill,
        "brier_skill_walk_forward": metrics.brier_skill_walk_forward,
        "uncalibrated": metrics.uncalibrated,
        "ece": cal.ece,
    }


def subsets(frame: pd.DataFrame, config: EvaluationConfig, regimes: pd.Series) -> dict[str, pd.Series]:
    """Boolean masks over `frame`'s rows: after the cutoff, benchmark-up and -down months (a month
    without a known benchmark move is in neither)."""
    as_of = pd.to_datetime(frame["as_of"])
    up = as_of.dt.to_period("M").map(regimes)
    return {
        "after_cutoff": as_of >= pd.Timestamp(config.knowledge_cutoff),
        "benchmark_up": up.eq(True),
        "benchmark_down": up.eq(False),
    }


def score_set(
    frame: pd.DataFrame, baseline: pd.DataFrame | None, config: EvaluationConfig, regimes: pd.Series
) -> dict[str, Any]:
    """Per horizon: the headline over all points, the detail, the three subsets, the bootstrap."""
    masks = subsets(frame, config, regimes)
    out: dict[str, Any] = {}
    for h in config.horizons:
        points = horizon_frame(frame, h)
        full = summarise(points, hold_band=config.hold_band)
        entry = {**headline(full), "detail": full.model_dump(mode="json")}
        entry["rank_ic"]["interval"] = bootstrap_interval(
            points, MeanRankIC(), resamples=config.bootstrap_resamples, seed=config.bootstrap_seed
        ).model_dump(mode="json")
        for name in SUBSETS:
            entry[name] = headline(summarise(points[masks[name].to_numpy()], hold_band=config.hold_band))
        if baseline is not None:
            base = horizon_frame(baseline, h)
            entry["bootstrap"] = {
                name: bootstrap_difference(
                    points["as_of"], points, base, statistic,
                    resamples=config.bootstrap_resamples, seed=config.bootstrap_seed,
                ).model_dump(mode="json")
                for name, statistic in (
                    ("hit_rate", HitRate(config.hold_band)),
                    ("rank_ic", MeanRankIC()),
                    ("mean_excess_bought", MeanExcess(("BUY",))),
                )
            }  # fmt: skip
        out[str(h)] = entry
    return out


def attribution(frame: pd.DataFrame, horizons: list[int]) -> dict[str, Any]:
    """Per horizon: each expert's stance hit rate and rank IC (from the points' expert voices)."""
    rows = [
        {"as_of": r.as_of, "expert": name, "stance": voice.stance, "confidence": voice.confidence, "index": i}
        for i, r in enumerate(frame.itertuples(index=False))
        for name, voice in (r.experts or {}).items()
    ]
    if not rows:
        return {str(h): [] for h in horizons}
    voices = pd.DataFrame(rows)
    out = {}
    for h in horizons:
        voices["forward_return"] = frame[f"fwd_{h}"].to_numpy()[voices["index"]]
        voices["excess_return"] = frame[f"exc_{h}"].to_numpy()[voices["index"]]
        out[str(h)] = [a.model_dump(mode="json") for a in expert_attribution(voices)]
    return out


def portfolio(
    frames: Mapping[str, pd.DataFrame],
    bars: pd.DataFrame,
    securities: Mapping[str, SecurityInfo],
    levels: pd.DataFrame,
    config: EvaluationConfig,
) -> dict[str, Any]:
    """Each set's follow-the-verdict portfolio and the benchmark over the evaluation's own window.

    The window (`window`) runs from the first evaluation date to the close of the `every`-th trading
    day after the last one: the day the last verdicts would have been replaced, had the schedule gone
    on (each verdict is held one period). Bars after it are never read, so prices stored later change
    nothing; when the store ends sooner the window ends with it (`complete` false).
    The portfolio trades through `shared.execution.execute` with the A-share rules (price limits,
    suspensions, T+1, lots of 100 out of `config.capital`), the dated cost schedule plus the config's
    slippage; `metrics_without_costs` is the same run at zero costs, side by side.
    """
    markets = {s: info.market for s, info in securities.items()}
    names = {s: info.name for s, info in securities.items()}
    first = min(pd.Timestamp(f["as_of"].min()) for f in frames.values())
    last = max(pd.Timestamp(f["as_of"].max()) for f in frames.values())
    panel = trading_panel(bars, markets, limit_lookup(names)).between(first, None)
    end, complete = holding_end(panel.close.index, last, config.every)
    panel = panel.between(first, end)
    closes = panel.close
    if closes.empty:
        return {"dates": [], "benchmark": [], "curves": {}, "metrics": {}}
    rules = ExecutionRules(capital=config.capital)
    buy, sell = cost_frames(panel, slippage=config.slippage)
    free_buy, free_sell = zero_costs(panel)
    bench = levels["close"].reindex(closes.index).ffill()
    bench = bench / bench.dropna().iloc[0] if bench.notna().any() else bench
    curves, metrics, gross = {}, {}, {}
    for name, frame in frames.items():
        held = frame[["as_of", "symbol", "action", "position_percent", "filled"]].copy()
        held["position_percent"] *= 100.0  # the verdict's is a fraction of the book (judge spec)
        weights = verdict_weights(held).reindex(columns=closes.columns, fill_value=0.0)
        sim = follow_portfolio(panel, weights, buy, sell, rules)
        curves[name] = [round(float(v), 6) for v in sim.nav]
        metrics[name] = {
            **strategy_metrics(sim).model_dump(),
            "blocked_by_limit": sim.blocked_by_limit,
            "skipped_suspended": sim.skipped_suspended,
        }
        costless = follow_portfolio(panel, weights, free_buy, free_sell, rules)
        gross[name] = strategy_metrics(costless).model_dump()
    if bench.notna().all():
        metrics["benchmark"] = performance(bench).model_dump()
    return {
        "window": {
            "start": closes.index[0].date().isoformat(),
            "end": closes.index[-1].date().isoformat(),
            "complete": complete,
        },
        "dates": [d.date().isoformat() for d in closes.index],
        "benchmark": [None if math.isnan(v) else round(float(v), 6) for v in bench],
        "curves": curves,
        "metrics": metrics,
        "metrics_without_costs": gross,
        "costs": {
            "slippage": config.slippage,
            "capital": config.capital,
            "note": "commission and stamp duty per market (A-share duty by trade date), plus slippage each "
            "side; next-open fills with price limits, suspensions, T+1 and lots of 100 for A-shares",
        },
    }


def holding_end(
    calendar: pd.DatetimeIndex, last: pd.Timestamp, every: int
) -> tuple[pd.Timestamp | None, bool]:
    """The `every`-th trading day of `calendar` after `last` (the last evaluation date), and True; the
    calendar's last day and False when it ends sooner (None, False for an empty calendar)."""
    if calendar.empty:
        return None, False
    at = int(calendar.searchsorted(last, side="right")) - 1 + every
    return (calendar[at], True) if at < len(calendar) else (calendar[-1], False)


def points_of(frame: pd.DataFrame, config: EvaluationConfig) -> list[EvaluationPoint]:
    """The mode's points as the JSON contract holds them (returns rounded to 1e-8).

    Built with `model_construct` from whole columns: every value here was computed (and its stored
    verdict validated) by this code, and validating 47,000 points again, or reading them row by
    row, cost seconds of a one-minute evaluation."""
    keys = [str(h) for h in config.horizons]
    n = len(frame)
    seen: dict[tuple, CalibrationInfo] = {}  # a date's calibration is shared by all its symbols
    entry = pd.to_datetime(frame["entry_date"])
    entry_dates = entry.to_numpy(dtype="datetime64[D]").tolist()  # `date`s, None for NaT
    prices = _fractions(frame["entry_price"], digits=None)
    forward = {k: _fractions(frame[f"fwd_{k}"]) for k in keys}
    excess = {k: _fractions(frame[f"exc_{k}"]) for k in keys}
    column = {c: frame[c].tolist() if c in frame else [None] * n for c in (
        "symbol", "as_of", "action", "confidence", "position_percent", "filled", "session_id", "evidence",
        "experts", "probability_up", "calibration", "contributions",
    )}  # fmt: skip
    cutoff = config.knowledge_cutoff
    construct = EvaluationPoint.model_construct
    return [
        construct(
            symbol=column["symbol"][i], as_of=column["as_of"][i], action=column["action"][i],
            confidence=float(column["confidence"][i]), position_percent=float(column["position_percent"][i]),
            entry_date=entry_dates[i], entry_price=prices[i], filled=bool(column["filled"][i]),
            forward_returns={k: forward[k][i] for k in keys}, excess_returns={k: excess[k][i] for k in keys},
            session_id=column["session_id"][i] if isinstance(column["session_id"][i], str) else None,
            evidence=column["evidence"][i] if isinstance(column["evidence"][i], str) else "sufficient",
            in_training_window=column["as_of"][i] < cutoff,
            experts={k: _voice(v) for k, v in (column["experts"][i] or {}).items()},
            probability_up=column["probability_up"][i] or {},
            calibration={k: _calibration(v, seen) for k, v in (column["calibration"][i] or {}).items()},
            contributions=column["contributions"][i] or {},
        )
        for i in range(n)
    ]  # fmt: skip


def _fractions(values: pd.Series, digits: int | None = 8) -> list[float | None]:
    """Floats rounded to `digits` (None: as they are), None where not finite."""
    array = values.to_numpy(dtype=float)
    if digits is not None:
        array = np.round(array, digits)
    return [float(v) if np.isfinite(v) else None for v in array]


def _voice(value: Any) -> ExpertVoice:
    return value if isinstance(value, ExpertVoice) else ExpertVoice.model_validate(value)


def _calibration(value: Any, seen: dict[tuple, CalibrationInfo]) -> CalibrationInfo:
    """The validated calibration, validated once per distinct value (frozen use: read only)."""
    if isinstance(value, CalibrationInfo):
        return value
    key = tuple(sorted(value.items()))
    if key not in seen:
        seen[key] = CalibrationInfo.model_validate(value)
    return seen[key]
