"""What `stockdesk evaluate` is asked (EvaluationConfig) and what it answers (EvaluationReport).

The report's JSON is a contract other tools read: top-level `config`, `points`, `llm_calls`,
`tokens`, `metrics` (per mode and baseline, per horizon) and `portfolio`.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from stockdesk.research.application import ModelCalibration
from stockdesk.shared.errors import BadRequestException

ALL_EXPERTS = (
    "valuation_modeler",
    "technical_analyst",
    "financial_auditor",
    "macro_intelligence",
    "catalyst_detective",
)
# Qwen's team publishes no training cutoff for Qwen2.5-Coder; its release date bounds it from above.
EMBEDDED_MODEL_CUTOFF = date(2024, 9, 19)


def trading_day_horizons(value: list[int]) -> list[int]:
    """Horizons as evaluate and track take them: 1-250 trading days, sorted, each once."""
    if not value or any(h < 1 or h > 250 for h in value):
        raise ValueError("horizons are trading days between 1 and 250")
    return sorted(set(value))


class EvaluationMode(StrEnum):
    RULES = "rules"
    """The code-only rules verdict: no LLM."""
    EXPERTS = "experts"
    """The LLM experts, combined by the rules (no debate, no judge LLM)."""
    FULL = "full"
    """The whole pipeline: LLM experts, debate and judge."""


class EvaluationConfig(BaseModel):
    """Everything that decides the results; its hash names the run's durable tasks."""

    symbols: list[str] = Field(min_length=1)
    start: date
    end: date
    every: int = Field(default=20, ge=1, description="every N trading days of each symbol's calendar")
    horizons: list[int] = Field(default_factory=lambda: [5, 20, 60])
    mode: EvaluationMode = EvaluationMode.RULES
    experts: list[str] = Field(default_factory=lambda: list(ALL_EXPERTS))
    benchmark: str | None = Field(
        default=None, description="a stored symbol; None: the equal-weight universe"
    )
    slippage: float = Field(default=0.0005, ge=0.0, lt=0.05, description="per side, a fraction")
    capital: float = Field(
        default=1_000_000.0,
        gt=0.0,
        description="starting money of the follow-the-verdict portfolio: A-shares trade in lots of 100",
    )
    hold_band: float = Field(default=0.03, gt=0.0, lt=1.0, description="|return| within which HOLD hits")
    knowledge_cutoff: date = Field(
        default=EMBEDDED_MODEL_CUTOFF, description="points dated before it are in the training window"
    )
    bootstrap_resamples: int = Field(default=1000, ge=100, le=100_000)
    bootstrap_seed: int = 20240101
    reflection: bool = Field(
        default=False,
        description="full mode: run every point twice, without and with lessons from the run's own "
        "earlier points whose outcome was known by the point's date, and compare them (paired bootstrap)",
    )

    @field_validator("symbols")
    @classmethod
    def _symbols(cls, value: list[str]) -> list[str]:
        cleaned = list(dict.fromkeys(s.strip().upper() for s in value if s.strip()))
        if not cleaned:
            raise ValueError("name at least one symbol")
        return cleaned

    @field_validator("horizons")
    @classmethod
    def _horizons(cls, value: list[int]) -> list[int]:
        return trading_day_horizons(value)

    @field_validator("experts")
    @classmethod
    def _experts(cls, value: list[str]) -> list[str]:
        unknown = [e for e in value if e not in ALL_EXPERTS]
        if unknown or not value:
            raise ValueError(
                f"experts must be among {', '.join(ALL_EXPERTS)}; got {', '.join(unknown) or 'none'}"
            )
        return list(dict.fromkeys(value))

    @model_validator(mode="after")
    def _window(self) -> EvaluationConfig:
        if self.start > self.end:
            raise ValueError(f"--from {self.start} is after --to {self.end}")
        if self.reflection and self.mode is not EvaluationMode.FULL:
            raise ValueError("reflection gives lessons to the LLM judge, which only the full mode runs")
        return self

    def stored(self) -> dict[str, Any]:
        """The config as its job stores and hashes it (`reflection` only when on, so the jobs of
        every run before it existed keep their hash and resume)."""
        out = self.model_dump(mode="json")
        if not self.reflection:
            out.pop("reflection")
        return out

    def without_reflection(self) -> EvaluationConfig:
        """The same run without lessons: the baseline arm a reflection run is compared with."""
        return self.model_copy(update={"reflection": False})


def evaluation_config(data: dict[str, Any]) -> EvaluationConfig:
    """The config, or one 400 INVALID_EVALUATION naming the first problem (CLI and REST alike)."""
    try:
        return EvaluationConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "config"
        raise BadRequestException(f"{where}: {first['msg']}", code="INVALID_EVALUATION") from exc


class ExpertVoice(BaseModel):
    """One expert's stance at one point (code signal in rules mode, the LLM's own otherwise)."""

    stance: str
    confidence: float


CalibrationInfo = ModelCalibration  # the signal model's own type: one definition


class Verdict(BaseModel):
    """What a task stores: the verdict of one (symbol, date), before any market outcome."""

    action: str = Field(description="BUY | SELL | HOLD")
    confidence: float
    evidence: str = Field(
        default="sufficient",
        description="insufficient: fewer than two experts had data (HOLD, confidence 0, no position)",
    )
    probability_up: dict[str, float | None] = Field(
        default_factory=dict,
        description="horizon -> calibrated P(excess return > 0); None: uncalibrated (too few past outcomes)",
    )
    calibration: dict[str, CalibrationInfo] = Field(default_factory=dict, description="per horizon")
    contributions: dict[str, float] = Field(
        default_factory=dict,
        description="expert group -> its part of the model's score at the verdict horizon",
    )
    position_percent: float = 0.0
    session_id: str | None = None
    experts: dict[str, ExpertVoice] = Field(default_factory=dict)
    llm_calls: int = 0
    tokens: int = 0


class EvaluationPoint(BaseModel):
    symbol: str
    as_of: date
    action: str
    confidence: float
    position_percent: float
    entry_date: date | None
    entry_price: float | None
    filled: bool = Field(
        description="False: a BUY at a limit-up open, a SELL at a limit-down open, no entry day"
    )
    forward_returns: dict[str, float | None] = Field(description="horizon -> return as a fraction")
    excess_returns: dict[str, float | None] = Field(description="horizon -> return over the benchmark's")
    evidence: str = Field(
        default="sufficient", description="insufficient: fewer than two experts had data (HOLD, confidence 0)"
    )
    session_id: str | None = None
    probability_up: dict[str, float | None] = Field(default_factory=dict)
    calibration: dict[str, CalibrationInfo] = Field(default_factory=dict)
    contributions: dict[str, float] = Field(default_factory=dict)
    in_training_window: bool = False
    experts: dict[str, ExpertVoice] = Field(default_factory=dict)


class EvaluationJob(BaseModel):
    """A durable evaluation: its config and how far its points are (REST polls this)."""

    job_id: str
    status: str = Field(description="pending | running | done | failed | interrupted")
    config: dict[str, Any]
    done: int
    failed: int = Field(description="points that failed after every retry")
    pending: int = Field(description="points still to compute (or being computed)")
    total: int
    error: str | None = None
    created_at: datetime | None = Field(default=None, description="when the job was first started")


class FailedTask(BaseModel):
    symbol: str
    as_of: date
    attempts: int
    error: str


class EvaluationReport(BaseModel):
    config: dict[str, Any]
    job_id: str
    points: list[EvaluationPoint]
    failed: list[FailedTask] = Field(default_factory=list)
    llm_calls: int = Field(description="LLM calls this run made (cache hits excluded)")
    tokens: int
    cache_hits: int = 0
    resumed: int = Field(default=0, description="tasks finished by an earlier, interrupted run")
    metrics: dict[str, Any] = Field(description="per mode and baseline, per horizon")
    portfolio: dict[str, Any]
    summary: str = Field(description="the one-paragraph plain-language verdict on the run")
    i18n: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="language -> {'summary': the same paragraph in that language} (shared.wording)",
    )
    reflection: dict[str, Any] | None = Field(
        default=None,
        description="--reflection: with vs without lessons on the same points (paired bootstrap per "
        "horizon, actions changed, whether it helps, in words)",
    )


class VerdictTable(BaseModel):
    """The mode's points as the evaluation page lists them, one list per column: compact to store,
    read and sort (a page of a 47,000-point evaluation reads this, never the points themselves)."""

    symbol: list[str] = Field(default_factory=list)
    as_of: list[date] = Field(default_factory=list)
    action: list[str] = Field(default_factory=list)
    session_id: list[str | None] = Field(
        default_factory=list,
        description="the stored research session of an LLM mode's point; None in rules mode",
    )
    probability: dict[str, list[float | None]] = Field(
        default_factory=dict,
        description="horizon -> the point's calibrated P(excess > 0); None: uncalibrated",
    )
    forward: dict[str, list[float | None]] = Field(default_factory=dict, description="horizon -> return")
    excess: dict[str, list[float | None]] = Field(default_factory=dict, description="horizon -> excess")
    hit: dict[str, list[bool | None]] = Field(
        default_factory=dict,
        description="horizon -> the hit rule of the by-action figures; None: not known yet",
    )


class VerdictRow(BaseModel):
    """One point at one horizon."""

    symbol: str
    as_of: date
    action: str
    session_id: str | None
    probability: float | None
    forward: float | None
    excess: float | None
    hit: bool | None


class VerdictPage(BaseModel):
    """A sorted slice of the verdict table at one horizon; `total` points in all."""

    horizon: str
    sort: str
    descending: bool
    offset: int
    total: int
    rows: list[VerdictRow]


class ReportOverview(BaseModel):
    """What the evaluation page shows: the report without its points, and the points as a table."""

    report: EvaluationReport = Field(description="points left out (`verdicts` has them)")
    verdicts: VerdictTable
    scored_at: datetime


class ReportBasis(BaseModel):
    """What a stored report was scored from: it is shown again only while all of it is the same."""

    version: int = Field(description="the scoring code's version (SCORING_VERSION)")
    done: int
    failed: int
    bars_through: date | None = Field(
        description="the last bar day the scores read; None: they wanted days the store did not have yet"
    )
    bars: str = Field(
        description="fingerprint of the universe's bars from the window's start to bars_through"
    )
