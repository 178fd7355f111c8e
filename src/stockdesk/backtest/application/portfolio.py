"""Follow-the-verdict portfolio: hold what the verdicts say, traded at the next open with costs.

`verdict_weights` turns dated verdicts into target weights: on each decision date the portfolio
holds position_percent / 100 of every BUY that filled and nothing else (SELL, HOLD and unfilled BUY
verdicts are 0: a symbol with no filled BUY on a decision date is sold). `follow_portfolio` runs
such targets through `orders.execute` (next-open fills under the market rules: price limits,
suspensions, T+1, lots) with no stops:
- A decision date that is not a trading day (a weekend verdict) counts as decided on the last
  trading day before it, so it executes at the first open after it; decisions before the first
  day of the panel cannot be executed and are dropped; of several decisions mapping to the same
  trading day the latest wins.
- A row whose weights sum above 1 is scaled down proportionally to sum to 1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from stockdesk.backtest.application.engine import Simulation
from stockdesk.backtest.application.orders import execute
from stockdesk.backtest.application.rules import ExecutionRules
from stockdesk.backtest.application.trading_panel import TradingPanel
from stockdesk.shared.errors import BadRequestException

VERDICT_COLUMNS = ("as_of", "symbol", "action", "position_percent", "filled")


def verdict_weights(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Decision dates x symbols: position_percent / 100 of filled BUYs, 0 otherwise (raw, unscaled).

    `verdicts` has columns as_of, symbol, action, position_percent and filled (as produced by
    `fills_and_returns` joined to the verdicts); one verdict per (as_of, symbol).
    """
    missing = [name for name in VERDICT_COLUMNS if name not in verdicts.columns]
    if missing:
        raise BadRequestException(f"verdicts lack columns {missing}")
    frame = pd.DataFrame(
        {
            "as_of": pd.to_datetime(verdicts["as_of"]).to_numpy(),
            "symbol": verdicts["symbol"].astype(str).to_numpy(),
        }
    )
    if frame.duplicated().any():
        raise BadRequestException("verdicts have more than one verdict for an (as_of, symbol)")
    buy = verdicts["action"].astype(str).str.strip().str.upper().to_numpy() == "BUY"
    filled = verdicts["filled"].fillna(False).astype(bool).to_numpy()
    percent = pd.to_numeric(verdicts["position_percent"], errors="coerce").to_numpy(dtype="float64")
    frame["weight"] = np.where(buy & filled, np.clip(np.nan_to_num(percent), 0.0, None) / 100.0, 0.0)
    weights = frame.pivot(index="as_of", columns="symbol", values="weight").fillna(0.0)
    weights.index.name, weights.columns.name = "as_of", "symbol"
    return weights


def follow_portfolio(
    panel: TradingPanel,
    targets: pd.DataFrame,
    costs_buy: pd.DataFrame | pd.Series | float,
    costs_sell: pd.DataFrame | pd.Series | float,
    rules: ExecutionRules | None = None,
) -> Simulation:
    """Simulate the targets (decision dates x symbols, weights >= 0, NaN = 0) executed at the next
    open on `panel` (`trading_panel.trading_panel`) with costs (dates x symbols frames from
    `costs.cost_frames`, per-symbol Series or one rate), `rules` (default `ExecutionRules()`) and no
    stops (see the module docstring)."""
    closes_adj = panel.close
    if not isinstance(closes_adj.index, pd.DatetimeIndex) or len(closes_adj.index) == 0:
        raise BadRequestException("the panel must be indexed by trading dates")
    raw = targets.astype("float64").fillna(0.0)
    if (raw.to_numpy() < 0).any():
        raise BadRequestException("target weights must be >= 0 (no short selling)")
    sums = raw.sum(axis=1)
    scaled = raw.div(sums.where(sums > 1.0, 1.0), axis=0)
    scaled.index = pd.DatetimeIndex(pd.to_datetime(scaled.index))
    scaled = scaled.sort_index(kind="stable")

    decided = scaled.index
    position = closes_adj.index.searchsorted(decided, side="right") - 1  # last trading day <= decision
    keep = position >= 0
    mapped = scaled.loc[keep].set_axis(closes_adj.index[position[keep]], axis=0)  # still sorted
    mapped = mapped.loc[~mapped.index.duplicated(keep="last")]

    return execute(
        panel,
        mapped,
        stop_loss=None,
        buy_cost=_rates(costs_buy, closes_adj.columns),
        sell_cost=_rates(costs_sell, closes_adj.columns),
        rules=rules,
    )


def _rates(costs: pd.DataFrame | pd.Series | float, symbols: pd.Index) -> pd.DataFrame | pd.Series:
    if isinstance(costs, (pd.DataFrame, pd.Series)):
        return costs
    return pd.Series(float(costs), index=symbols, dtype="float64")
