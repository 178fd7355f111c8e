"""Default one-way trading costs per market, as fractions of the traded value.

Where the numbers come from (public fee schedules; rounded, broker commissions vary):
- CN (A-shares): buy 0.0003 = a typical ~0.03 % ("万三") broker commission including exchange
  handling and transfer fees; sell 0.0008 = the same plus the 0.05 % stamp duty charged on sells
  only, halved from 0.1 % with effect from 2023-08-28 (Ministry of Finance / State Taxation
  Administration announcement 2023 No. 39).
- US: 0.0005 each way, an estimate of spread and regulatory fees (SEC Section 31 fee and FINRA TAF on
  sells are fractions of a basis point; most retail brokers charge no commission). The US has no
  stamp duty or transaction tax on share trades, so buy and sell are the same.
- HK: 0.0013 each way = 0.1 % stamp duty paid by both buyer and seller (since 2023-11-17) plus the
  exchange trading fee, SFC and AFRC levies and a typical commission.
- TW: buy 0.001425 = the 0.1425 % maximum broker commission; sell 0.004425 = that commission plus
  the 0.3 % securities transaction tax on sells of shares.
A market the table does not know gets the US figures: a modest, commission-free-broker estimate.

Slippage (the fill being worse than the quoted price: half the spread, market impact) is not in the
table; `with_slippage` adds an assumed fraction to both sides of a model.

`cost_frames` gives dates x symbols rates for `execute`. There CN follows the dated schedule instead
of today's flat model: commission 0.0003 each side, plus stamp duty on sells by trade date, 0.1 %
before 2023-08-28 and 0.05 % from it (announcement 2023 No. 39 above). Sells before 2008-09-19 (when
the duty became sells-only; earlier it was charged on both sides, at other rates) are charged the
0.1 % too: a simplification for old data. An override of a market replaces its schedule with the
override's flat rates; slippage is added to every side of every market.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from stockdesk.shared.errors import BadRequestException

if TYPE_CHECKING:
    from stockdesk.backtest.application.trading_panel import TradingPanel

DEFAULT_MARKET = "US"
MAX_COST = 0.05
"""The largest one-way cost a model accepts (5 %): anything above is a typo, not a fee."""


class CostModel(BaseModel):
    """One-way transaction costs as fractions of the traded value (0.0003 = 3 bps)."""

    buy: float = Field(ge=0.0, le=MAX_COST)
    sell: float = Field(ge=0.0, le=MAX_COST)


CN_COMMISSION = 0.0003
"""A-share commission incl. exchange handling and transfer fees, each side."""
STAMP_DUTY_HALVED = date(2023, 8, 28)
"""From this trade date the A-share stamp duty on sells is 0.05 % instead of 0.1 %."""
STAMP_DUTY_BEFORE, STAMP_DUTY_FROM = 0.001, 0.0005

DEFAULT_COSTS: dict[str, CostModel] = {
    "CN": CostModel(buy=0.0003, sell=0.0008),
    "US": CostModel(buy=0.0005, sell=0.0005),
    "HK": CostModel(buy=0.0013, sell=0.0013),
    "TW": CostModel(buy=0.001425, sell=0.004425),
}


def cost_model(market: str, overrides: dict[str, CostModel] | None = None) -> CostModel:
    """The model charged in `market`.

    `overrides` replaces the defaults of the markets it names (keys matched case-insensitively);
    a market with no entry uses the (possibly overridden) US model.
    """
    table = {**DEFAULT_COSTS, **{name.upper(): model for name, model in (overrides or {}).items()}}
    return table.get(str(market).upper(), table[DEFAULT_MARKET])


def cost_rates(
    markets: dict[str, str], overrides: dict[str, CostModel] | None = None
) -> tuple[pd.Series, pd.Series]:
    """Per-symbol (buy, sell) rates for `simulate` from each symbol's market (see `cost_model`)."""
    models = [cost_model(market, overrides) for market in markets.values()]
    symbols = pd.Index(list(markets), name="symbol")
    buy = pd.Series([model.buy for model in models], index=symbols, name="buy_cost", dtype="float64")
    sell = pd.Series([model.sell for model in models], index=symbols, name="sell_cost", dtype="float64")
    return buy, sell


def with_slippage(model: CostModel, slippage: float) -> CostModel:
    """`model` with `slippage` (a fraction of the traded value, e.g. 0.001 = 10 bps) added to each side."""
    if not 0.0 <= slippage <= MAX_COST - max(model.buy, model.sell):
        raise BadRequestException(
            f"slippage must be >= 0 and keep each side within {MAX_COST}, got {slippage} on {model}"
        )
    return CostModel(buy=model.buy + slippage, sell=model.sell + slippage)


def stamp_duty(dates: Sequence | pd.Index) -> np.ndarray:
    """A-share stamp duty on sells, per trade date (see the module docstring)."""
    days = pd.DatetimeIndex(pd.to_datetime(dates))
    return np.where(days < pd.Timestamp(STAMP_DUTY_HALVED), STAMP_DUTY_BEFORE, STAMP_DUTY_FROM)


def cost_frames(
    source: TradingPanel | tuple[Sequence | pd.Index, Mapping[str, str]],
    overrides: dict[str, CostModel] | None = None,
    slippage: float = 0.0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(buy, sell) one-way rates as dates x symbols frames for `execute`, from a panel or from
    (dates, symbol -> market): the CN schedule, other markets' models, overrides as flat rates,
    plus `slippage` on each side (see the module docstring)."""
    dates, markets = _dates_and_markets(source)
    if not 0.0 <= slippage <= MAX_COST - CN_COMMISSION - STAMP_DUTY_BEFORE:
        raise BadRequestException(f"slippage must be a fraction between 0 and a few percent, got {slippage}")
    table = {name.upper(): model for name, model in (overrides or {}).items()}
    duty = stamp_duty(dates)
    buy_columns, sell_columns = {}, {}
    for symbol, market in markets.items():
        code = str(market).upper()
        if code == "CN" and code not in table:
            buy_columns[symbol] = np.full(len(dates), CN_COMMISSION + slippage)
            sell_columns[symbol] = CN_COMMISSION + duty + slippage
        else:
            model = with_slippage(cost_model(code, overrides), slippage)
            buy_columns[symbol] = np.full(len(dates), model.buy)
            sell_columns[symbol] = np.full(len(dates), model.sell)
    columns = pd.Index(list(markets), name="symbol")
    buy = pd.DataFrame(buy_columns, index=dates, columns=columns, dtype="float64")
    sell = pd.DataFrame(sell_columns, index=dates, columns=columns, dtype="float64")
    return buy, sell


def zero_costs(
    source: TradingPanel | tuple[Sequence | pd.Index, Mapping[str, str]],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(buy, sell) frames of zeros shaped like `cost_frames`: the same run without costs, side by side."""
    buy, sell = cost_frames(source)
    return buy * 0.0, sell * 0.0


def _dates_and_markets(
    source: TradingPanel | tuple[Sequence | pd.Index, Mapping[str, str]],
) -> tuple[pd.Index, dict[str, str]]:
    if isinstance(source, tuple):
        dates, markets = source
        return pd.DatetimeIndex(pd.to_datetime(dates), name="trade_date"), dict(markets)
    return source.close.index, {s: source.markets[s] for s in source.close.columns}
