"""The signal model at analysis time: one symbol's model verdict as of a date, point in time.

The universe is every stored symbol of the symbol's market; bars are read up to `as_of` only, so
no label, factor or calibration outcome after it exists (the model cannot see the future because
the future is not loaded). The run is the same `run_model` that `evaluate --mode rules` scores, at
one date: the rules verdict a user gets is the verdict `evaluate` measured.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

import pandas as pd

from stockdesk.backtest.application import index_levels, limit_lookup
from stockdesk.research.application.factors import FactorService
from stockdesk.research.application.signal_model.market import ModelMarket, Peer
from stockdesk.research.application.signal_model.run import (
    LOOKBACK_YEARS,
    ModelInputs,
    run_model,
    trading_calendar,
    verdict_horizon,
)
from stockdesk.research.domain.dtos.model_view import ModelCalibration, ModelView

HORIZONS = (5, 20, 60)
HISTORY_DAYS = (LOOKBACK_YEARS + 2) * 366  # the grid's years plus a year of factor warm-up


RUNS_KEPT = 4  # a batch of symbols on one date shares its market's run ...
RUN_SECONDS = 600.0  # ... for ten minutes at most, so data imported meanwhile is read again


class SignalModelService:
    def __init__(self, factors: FactorService, market: ModelMarket):
        self._factors = factors
        self._market = market
        self._runs: OrderedDict[tuple[tuple[str, ...], date], tuple[float, pd.DataFrame, date]] = (
            OrderedDict()
        )

    def view(self, symbol: str, as_of: date) -> ModelView | None:
        """The model's verdict on `symbol` at its last trading day by `as_of`; None without bars."""
        peers = {p.symbol: p for p in self._market.peers(symbol)}
        if symbol not in peers:
            return None
        universe = sorted(peers)
        ran = self._run(universe, peers, as_of)
        if ran is None:
            return None
        rows, day = ran
        found = rows[(rows["symbol"] == symbol) & (rows["date"] == pd.Timestamp(day))]
        if found.empty:
            return None
        return model_view(found.iloc[0].to_dict(), symbol, day, len(universe))

    def _run(
        self, universe: list[str], peers: dict[str, Peer], as_of: date
    ) -> tuple[pd.DataFrame, date] | None:
        """The market's run as of `as_of` (kept for the next symbols of a batch on the same date)."""
        key = (tuple(universe), as_of)
        kept = self._runs.get(key)
        if kept is not None and time.monotonic() - kept[0] < RUN_SECONDS:
            self._runs.move_to_end(key)
            return kept[1], kept[2]
        bars = self._market.bars(universe, as_of - timedelta(days=HISTORY_DAYS), as_of)
        calendar = trading_calendar(bars)
        if not len(calendar):
            return None
        day = pd.Timestamp(calendar[-1]).date()
        inputs = ModelInputs(
            universe=universe, dates=[day], horizons=list(HORIZONS), bars=bars,
            markets={s: p.market for s, p in peers.items()},
            limits=limit_lookup({s: p.name for s, p in peers.items()}),
            levels=index_levels(bars, universe),
        )  # fmt: skip
        rows = run_model(self._factors, inputs)
        self._runs[key] = (time.monotonic(), rows, day)
        self._runs.move_to_end(key)
        while len(self._runs) > RUNS_KEPT:
            self._runs.popitem(last=False)
        return rows, day


def _number(value: object) -> float | None:
    return None if value is None or pd.isna(value) else round(float(value), 6)  # type: ignore[arg-type]


def calibration_of(row: Mapping[str, Any], h: int) -> ModelCalibration:
    fitted_to = row[f"fitted_to_{h}"]
    n = row[f"calibration_n_{h}"]
    return ModelCalibration(
        n=int(n) if pd.notna(n) else 0,
        ece=_number(row[f"calibration_ece_{h}"]),
        fitted_to=None if pd.isna(fitted_to) else pd.Timestamp(fitted_to).date(),
        base_rate=_number(row[f"base_rate_{h}"]),
        model=str(row[f"model_{h}"]),
        pairs=int(row[f"pairs_{h}"]),
    )


def model_view(row: Mapping[str, Any], symbol: str, day: date, universe: int) -> ModelView:
    """A `run_model` row (a Series or its dict) as the typed view every context reads."""
    horizons = sorted(int(str(c).removeprefix("score_")) for c in row if str(c).startswith("score_"))
    return ModelView(
        symbol=symbol,
        as_of=day,
        horizon=verdict_horizon(horizons),
        action=str(row["action"]),
        confidence=float(row["confidence"]),
        calibrated=bool(row["calibrated"]),
        probability_up={str(h): _number(row[f"probability_up_{h}"]) for h in horizons},
        calibration={str(h): calibration_of(row, h) for h in horizons},
        contributions={
            str(name).removeprefix("contribution_"): round(float(value), 6)
            for name, value in row.items()
            if str(name).startswith("contribution_")
        },
        universe=universe,
    )
