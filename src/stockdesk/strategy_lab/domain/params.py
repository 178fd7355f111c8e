"""C1/C2 of the strategy JSON-params spec: the only things the LLM is allowed to choose.

Three strategy families (the spec's "multi-strategy" future improvement), one pydantic model each,
joined in a discriminated union on `strategy_type`. Every parameter is a Literal, so the allowed
values are the schema; rules between parameters are model validators.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

FAMILIES: tuple[str, ...] = ("momentum", "mean_reversion", "volatility")
DEFAULT_FAMILY = "momentum"  # what a stored or typed parameter set without strategy_type means


class _FamilyParams(BaseModel):
    """What every family shares: a name, a stop, a schedule and a portfolio size."""

    model_config = ConfigDict(extra="forbid")

    def key(self) -> tuple[Any, ...]:
        """Identity of a parameter set (used to skip sets already tried)."""
        return tuple(getattr(self, name) for name in type(self).model_fields)


class MomentumStrategyParams(_FamilyParams):
    """Pydantic schema for Momentum strategy parameters."""

    strategy_type: Literal["momentum"] = Field("momentum", description="Strategy family")
    momentum_period: Literal[5, 10, 20, 30] = Field(description="Momentum lookback period in days")
    ma_periods: Literal[20, 60, 90, 120] = Field(description="Moving average period for trend confirmation")
    catalyst_type: Literal["revenue", "earnings"] = Field(
        description="Fundamental catalyst type (earnings: net profit after non-recurring items)"
    )
    catalyst_lookback: Literal[2, 3, 4, 6] = Field(
        description="Catalyst lookback window in months (quarterly reports: the quarters those months cover)"
    )
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


class MeanReversionParams(_FamilyParams):
    """Buy what fell far below its recent mean, hold until it recovers."""

    strategy_type: Literal["mean_reversion"] = Field("mean_reversion", description="Strategy family")
    lookback: Literal[5, 10, 20, 30] = Field(
        description="Days of the mean and standard deviation of the z-score"
    )
    entry_z: Literal[1.0, 1.5, 2.0, 2.5] = Field(
        description="Enter when the close is this many standard deviations below its lookback mean"
    )
    exit_z: Literal[0.0, 0.5, 1.0] = Field(
        description="Hold until the z-score recovers above -exit_z (0.0 = back to the mean)"
    )
    trend_ma: Literal[0, 60, 120, 250] = Field(
        description="Only enter above this long moving average (days; 0 = no trend filter)"
    )
    n_stocks: Literal[5, 10, 15, 20] = Field(description="Number of stocks in portfolio")
    stop_loss: Literal[0.05, 0.08, 0.10, 0.15] = Field(description="Stop loss percentage")
    resample: Literal["D", "W"] = Field(description="Rebalancing frequency (Daily/Weekly)")
    resample_offset: Literal[0, 1, 2, 3, 4] = Field(description="Rebalancing weekday for W (0 = Monday)")

    @model_validator(mode="after")
    def validate_parameter_consistency(self) -> MeanReversionParams:
        if self.exit_z >= self.entry_z:
            raise ValueError(
                f"exit_z ({self.exit_z}) must be below entry_z ({self.entry_z}): "
                "a position must be able to recover before it is sold"
            )
        if self.resample == "D" and self.resample_offset != 0:
            raise ValueError(
                f'resample_offset ({self.resample_offset}) must be 0 with resample "D" (every day rebalances)'
            )
        return self


class VolatilityParams(_FamilyParams):
    """Hold the calmest stocks, scaling exposure to a volatility target."""

    strategy_type: Literal["volatility"] = Field("volatility", description="Strategy family")
    vol_period: Literal[20, 60, 120] = Field(description="Days of realised volatility used to rank stocks")
    max_vol: Literal[0.25, 0.35, 0.5, 0.8] = Field(
        description="Leave out stocks whose annualised volatility is above this"
    )
    target_vol: Literal[0.1, 0.15, 0.2, 0.3] = Field(
        description="Annualised volatility the portfolio aims at: exposure = min(1, target / held average)"
    )
    trend_ma: Literal[0, 60, 120, 250] = Field(
        description="Only hold stocks above this long moving average (days; 0 = no trend filter)"
    )
    n_stocks: Literal[5, 10, 15, 20] = Field(description="Number of stocks in portfolio")
    stop_loss: Literal[0.08, 0.10, 0.12, 0.15] = Field(description="Stop loss percentage")
    resample: Literal["W", "M"] = Field(description="Rebalancing frequency (Weekly/Monthly)")
    resample_offset: Literal[0, 1, 2, 3, 4] = Field(description="Rebalancing day offset")

    @model_validator(mode="after")
    def validate_parameter_consistency(self) -> VolatilityParams:
        if self.target_vol >= self.max_vol:
            raise ValueError(
                f"target_vol ({self.target_vol}) must be below max_vol ({self.max_vol}): "
                "a target above the cap never scales anything"
            )
        if self.trend_ma and self.trend_ma < self.vol_period:
            raise ValueError(
                f"trend_ma ({self.trend_ma}) must be 0 or >= vol_period ({self.vol_period}): "
                "the trend filter is the longer view"
            )
        return self


StrategyParams = Annotated[
    MomentumStrategyParams | MeanReversionParams | VolatilityParams,
    Field(discriminator="strategy_type"),
]
FAMILY_MODELS: dict[str, type[_FamilyParams]] = {
    "momentum": MomentumStrategyParams,
    "mean_reversion": MeanReversionParams,
    "volatility": VolatilityParams,
}
_ADAPTER: TypeAdapter[Any] = TypeAdapter(StrategyParams)


class StrategyParamRequest(BaseModel):
    """A validated answer: the REASONING section and the JSON section's parameters."""

    reasoning: str = Field(min_length=50, max_length=500, description="Explanation for parameter choices")
    params: StrategyParams = Field(description="Strategy parameters")


class StrategyParamJSON(BaseModel):
    """The JSON section of an answer (the reasoning is its own section, not a JSON field)."""

    model_config = ConfigDict(extra="forbid")

    params: StrategyParams = Field(description="Strategy parameters of one family, chosen by strategy_type")


def with_family(data: Any) -> Any:
    """A stored or typed parameter dict without strategy_type is a momentum set (the first family)."""
    if isinstance(data, dict) and "strategy_type" not in data:
        return {"strategy_type": DEFAULT_FAMILY, **data}
    return data


def validate_params(data: Any) -> MomentumStrategyParams | MeanReversionParams | VolatilityParams:
    """Any family's parameters from a dict (missing strategy_type = momentum); pydantic errors as raised."""
    return _ADAPTER.validate_python(with_family(data))


def family_fields(family: str) -> tuple[str, ...]:
    """The parameter names of one family, strategy_type first."""
    return tuple(FAMILY_MODELS[family].model_fields)


def allowed_values(field: str, family: str = DEFAULT_FAMILY) -> list[Any]:
    """The Literal value set of one parameter of a family, in declaration order."""
    annotation = FAMILY_MODELS[family].model_fields[field].annotation
    return list(get_args(annotation))


FAMILY_ALLOWED: dict[str, dict[str, list[Any]]] = {
    family: {name: allowed_values(name, family) for name in family_fields(family) if name != "strategy_type"}
    for family in FAMILIES
}
PARAM_FIELDS: tuple[str, ...] = tuple(FAMILY_ALLOWED[DEFAULT_FAMILY])  # momentum's, as before
ALLOWED_VALUES: dict[str, list[Any]] = FAMILY_ALLOWED[DEFAULT_FAMILY]
