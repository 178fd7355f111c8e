"""Result shapes of `stockdesk evaluate`'s statistics (see `evaluation.application.scores`).

Every figure that cannot be computed (no data, zero spread) is None, never NaN or inf: the
report serialises these models to JSON, and JSON has no NaN. The shared base class turns a
non-finite float into None on the way in, so a required float that comes out non-finite is a
validation error rather than a silent `NaN` in a report.
"""

from __future__ import annotations

import math
from datetime import date
from typing import Any

import numpy as np
from pydantic import BaseModel, Field, field_validator


class _Metrics(BaseModel):
    """Base for the metric DTOs: numpy scalars become Python ones, NaN/inf become None."""

    @field_validator("*", mode="before")
    @classmethod
    def _finite_or_none(cls, value: Any) -> Any:
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value


class DateIC(_Metrics):
    """One evaluation date's cross-sectional Spearman correlation."""

    date: date
    ic: float = Field(ge=-1.0, le=1.0)
    symbols: int = Field(description="points with a finite signal and return on that date")


class RankIC(_Metrics):
    """Rank information coefficient over dates: does a higher signal pick the better stocks?"""

    mean: float | None = Field(default=None, description="mean of the per-date ICs; None without dates")
    std: float | None = Field(default=None, description="sample std (ddof=1) of the per-date ICs")
    icir: float | None = Field(default=None, description="mean / std; None with < 2 dates or std 0")
    t: float | None = Field(default=None, description="mean / (std / sqrt(dates)); None like icir")
    positive_share: float | None = Field(default=None, description="share of dates with IC > 0")
    dates: int = Field(default=0, description="dates that produced an IC")
    per_date: list[DateIC] = Field(default_factory=list)


class ReliabilityRow(_Metrics):
    """One probability bucket of the reliability table."""

    low: float
    high: float
    count: int
    mean_prob: float | None = None
    observed_rate: float | None = None


class Calibration(_Metrics):
    """Brier score with its Murphy decomposition, ECE and the reliability table."""

    count: int = Field(description="N: points scored")
    base_rate: float | None = Field(default=None, description="obar: share of positive outcomes")
    brier: float | None = None
    reliability: float | None = Field(default=None, description="REL: sum n_k/N (pbar_k - obar_k)^2")
    resolution: float | None = Field(default=None, description="RES: sum n_k/N (obar_k - obar)^2")
    uncertainty: float | None = Field(default=None, description="UNC: obar (1 - obar)")
    within_bucket: float | None = Field(
        default=None, description="brier - (REL - RES + UNC); 0 when probabilities are constant per bucket"
    )
    ece: float | None = Field(default=None, description="sum n_k/N |pbar_k - obar_k|")
    brier_skill: float | None = Field(default=None, description="1 - brier / UNC; None when UNC == 0")
    table: list[ReliabilityRow] = Field(default_factory=list)


class ActionStats(_Metrics):
    """How the points with one action (BUY, SELL or HOLD) did."""

    action: str
    count: int
    hit_rate: float | None = None
    mean_return: float | None = None
    median_return: float | None = None
    mean_excess: float | None = None
    median_excess: float | None = None


class ExpertAttribution(_Metrics):
    """Whether one expert's stance carried information about the forward excess return."""

    expert: str
    count: int = Field(description="points with a finite forward return")
    directional: int = Field(description="bullish or bearish points (the hit rate's denominator)")
    hit_rate: float | None = None
    ic_mean: float | None = None
    ic_t: float | None = None
    ic_dates: int = 0
    helps: bool | None = Field(default=None, description="IC mean > 0; None without an IC")


class BootstrapInterval(_Metrics):
    """Paired moving-block bootstrap interval of statistic(mode) - statistic(baseline)."""

    observed: float | None = Field(default=None, description="the difference on the original sample")
    low: float | None = None
    high: float | None = None
    resamples: int = Field(default=0, description="resamples with a finite difference")
    block: int = Field(default=1, description="consecutive dates per block")
    dates: int = Field(default=0, description="distinct evaluation dates resampled")
    alpha: float = 0.05
    distinguishable: bool = Field(default=False, description="the interval excludes 0")


class HorizonMetrics(_Metrics):
    """Everything `summarise` reports about one horizon's points."""

    count: int = Field(description="points with a finite forward return")
    missing: int = Field(description="points left out because their forward return is missing")
    actions: dict[str, ActionStats] = Field(default_factory=dict)
    hit_rate: float | None = None
    mean_excess: float | None = None
    rank_ic: RankIC = Field(default_factory=RankIC)
    calibration: Calibration
    brier_skill_walk_forward: float | None = Field(
        default=None,
        description="1 - Brier / Brier of the walk-forward base rate (the share of positive excess "
        "returns known at each point's date): skill over what a forecaster could have known",
    )
    uncalibrated: int = Field(
        default=0, description="points without a calibrated probability (left out of Brier)"
    )
