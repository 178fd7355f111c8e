"""C1/C2 of the strategy JSON-params spec: the only things the LLM is allowed to choose."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator


class MomentumStrategyParams(BaseModel):
    """Pydantic schema for Momentum strategy parameters."""

    model_config = ConfigDict(extra="forbid")

    momentum_period: Literal[5, 10, 20, 30] = Field(description="Momentum lookback period in days")
    ma_periods: Literal[20, 60, 90, 120] = Field(description="Moving average period for trend confirmation")
    catalyst_type: Literal["revenue", "earnings"] = Field(description="Fundamental catalyst type")
    catalyst_lookback: Literal[2, 3, 4, 6] = Field(description="Catalyst lookback window in months")
    n_stocks: Literal[5, 10, 15, 20] = Field(description="Number of stocks in portfolio")
    stop_loss: Literal[0.08, 0.10, 0.12, 0.15] = Field(description="Stop loss percentage")
    resample: Literal["W", "M"] = Field(description="Rebalancing frequency (Weekly/Monthly)")
    resample_offset: Literal[0, 1, 2, 3, 4] = Field(description="Rebalancing day offset")

    @model_validator(mode="after")
    def validate_parameter_consistency(self) -> MomentumStrategyParams:
        """Cross-parameter validation for logical consistency."""
        # resample_offset with "M" counts trading days after the month start, so every offset is allowed.
        if self.momentum_period > self.ma_periods:
            raise ValueError(
                f"momentum_period ({self.momentum_period}) should be <= ma_periods ({self.ma_periods}) "
                "for proper trend confirmation"
            )
        return self

    def key(self) -> tuple[Any, ...]:
        """Identity of a parameter set (used to skip sets already tried)."""
        return tuple(getattr(self, name) for name in PARAM_FIELDS)


class StrategyParamRequest(BaseModel):
    """Schema for LLM JSON output format."""

    reasoning: str = Field(min_length=50, max_length=500, description="Explanation for parameter choices")
    params: MomentumStrategyParams = Field(description="Strategy parameters")


PARAM_FIELDS: tuple[str, ...] = tuple(MomentumStrategyParams.model_fields)
# The quarterly figure each catalyst_type compares (short average above long average).
CATALYST_COLUMNS: dict[str, str] = {"revenue": "revenue", "earnings": "roe"}


def allowed_values(field: str) -> list[Any]:
    """The Literal value set of one parameter, in declaration order."""
    annotation = MomentumStrategyParams.model_fields[field].annotation
    return list(get_args(annotation))


ALLOWED_VALUES: dict[str, list[Any]] = {name: allowed_values(name) for name in PARAM_FIELDS}
