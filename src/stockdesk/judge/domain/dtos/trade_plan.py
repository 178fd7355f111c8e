"""The trade plan: every level, distance and size of a verdict, computed in code (never by the LLM)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from stockdesk.judge.domain.model.enums import ActionDirection

PlanVariant = Literal["standard", "conservative"]


class PlanInputs(BaseModel):
    """What the plan reads from the technical snapshot: prices as of the analysis date."""

    trade_date: str | None = None
    close: float = Field(gt=0, description="last close as of the date (forward-adjusted = traded price)")
    atr: float | None = Field(default=None, description="ATR(14); None when history is too short")
    support_levels: list[float] = Field(default_factory=list, description="swing lows below, nearest first")
    resistance_levels: list[float] = Field(
        default_factory=list, description="swing highs above, nearest first"
    )
    low_20d: float | None = None
    high_20d: float | None = None


class TradePlan(BaseModel):
    action: ActionDirection
    variant: PlanVariant = "standard"
    reference_date: str | None = Field(default=None, description="the trading day of the entry reference")
    entry_price: float = Field(
        description="last close as of the date: the entry (BUY), the exit (SELL), the reference (HOLD)"
    )
    atr: float
    atr_source: str = Field(description="ATR(14) or the documented fallback")
    swing_low: float | None = None
    swing_high: float | None = None
    stop_loss_price: float = Field(
        description="BUY: exit below; SELL: the level above which the bearish view is wrong; "
        "HOLD: the downside level to watch"
    )
    take_profit_price: float = Field(
        description="BUY: target above; SELL: downside target; HOLD: the upside level to watch"
    )
    stop_distance_pct: float = Field(description="distance entry -> stop, percent of entry")
    target_distance_pct: float = Field(description="distance entry -> target, percent of entry")
    risk_reward: float = Field(description="target distance / stop distance")
    position_percent: float = Field(ge=0.0, le=1.0)
    stop_rule: str
    target_rule: str
    sizing_rule: str
    i18n: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="language -> stop_rule, target_rule, sizing_rule and atr_source worded in it "
        "(shared.wording; the fields above are the English)",
    )


class PlanOption(BaseModel):
    """A code-given plan the judge may choose (it never writes a level itself)."""

    variant: PlanVariant
    plan: TradePlan
