"""Which market rules `execute` applies: price limits, T+1, lot sizes and the money they round against.

The defaults are China A-share rules, the desk's home market: a CN symbol is refused a buy at a
limit-up open and a sell at a limit-down open, what it bought today cannot be sold before the next
trading day (T+1: a stop-loss waits a day), and it is held in whole lots of 100 shares out of a
starting capital of 1,000,000. Other markets trade fractional weights with no T+1 unless listed.
Limits only bind where the panel carries limit prices (`trading_panel` gives them to A-shares).
"""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator


class ExecutionRules(BaseModel):
    """Market rules of one simulation (see the module docstring)."""

    price_limits: bool = Field(
        default=True, description="refuse buys at limit-up and sells at limit-down (opens and stop closes)"
    )
    t_plus_one_markets: set[str] = Field(
        default_factory=lambda: {"CN"},
        description="markets where shares bought today can be sold on the next trading day at the earliest",
    )
    lot_sizes: dict[str, int] = Field(
        default_factory=lambda: {"CN": 100},
        description="shares per lot by market; a market not listed trades fractional weights",
    )
    capital: float | None = Field(
        default=1_000_000.0,
        gt=0.0,
        description="starting money in the market's currency; None: fractional weights everywhere, no lots",
    )

    @field_validator("t_plus_one_markets")
    @classmethod
    def _markets(cls, value: set[str]) -> set[str]:
        return {market.strip().upper() for market in value}

    @field_validator("lot_sizes")
    @classmethod
    def _lots(cls, value: dict[str, int]) -> dict[str, int]:
        if any(size < 1 for size in value.values()):
            raise ValueError("lot sizes are whole numbers of shares >= 1")
        return {market.strip().upper(): size for market, size in value.items()}

    @classmethod
    def off(cls) -> ExecutionRules:
        """No limits, no T+1, no lots: the frictionless open execution of earlier versions."""
        return cls(price_limits=False, t_plus_one_markets=set(), lot_sizes={}, capital=None)

    def lot_size(self, market: str) -> int:
        """Shares per lot in `market`; 0 when positions there are fractional (no lots or no capital)."""
        if self.capital is None:
            return 0
        return self.lot_sizes.get(str(market).strip().upper(), 0)

    def t_plus_one(self, market: str) -> bool:
        return str(market).strip().upper() in self.t_plus_one_markets
