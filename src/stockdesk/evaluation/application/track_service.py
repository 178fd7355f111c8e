"""TrackService: score every matured ledger entry the way `stockdesk evaluate` scores its points.

- Entries come from the verdict ledger (a port over the ledger's application). Outcomes use
  evaluate's `outcomes`: entry at the next trading day's open after as_of (limit-up BUYs and
  limit-down SELLs do not fill), forward return at h = adjusted close of the h-th trading day
  (entry day = 1) over the adjusted entry open, excess over the equal-weight index of all
  stored symbols (or `--benchmark`) over the same window. An entry is *matured* at h when the
  stored bars hold that day.
- Live and retrospective entries are scored apart and never mixed; the headline is live only.
  Each kind: all entries, per mode, per model, per expert (stance voices), and cost per verdict.
- The portfolio is evaluate's follow-the-verdict book (next-open fills, A-share limits, T+1, lots,
  dated costs plus slippage), one per kind; an entry repeated for the same symbol and day counts once
  (the newest).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.evaluation.application.scoring import benchmark_levels, outcomes, portfolio
from stockdesk.evaluation.application.track_scores import cost_scores, expert_scores, horizon_scores
from stockdesk.evaluation.application.track_text import headline_text
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.evaluation.domain.ports import IEvaluationMarket
from stockdesk.evaluation.domain.track import (
    ChainStatus,
    ILedgerEntries,
    LedgerView,
    TrackConfig,
    TrackedEntry,
    TrackReport,
)
from stockdesk.shared.errors import NotFoundException

COLUMNS = [
    "seq", "entry_id", "symbol", "as_of", "created_at", "mode", "model", "action", "confidence",
    "position_percent", "probability_up", "session_id", "tokens", "llm_calls", "cost_usd", "retrospective",
]  # fmt: skip


def _frame(views: list[LedgerView]) -> pd.DataFrame:
    frame = pd.DataFrame([{c: getattr(v, c) for c in COLUMNS} for v in views], columns=COLUMNS)
    frame["probability_up"] = pd.to_numeric(frame["probability_up"], errors="coerce")
    frame["cost_usd"] = pd.to_numeric(frame["cost_usd"], errors="coerce")
    return frame


def _voices(views: list[LedgerView]) -> pd.DataFrame:
    rows = [
        (i, name, voice.stance, voice.confidence)
        for i, view in enumerate(views)
        for name, voice in view.experts.items()
    ]
    return pd.DataFrame(rows, columns=["row", "expert", "stance", "confidence"])


def _points(frame: pd.DataFrame, h: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "as_of": frame["as_of"].to_numpy(),
            "symbol": frame["symbol"].to_numpy(),
            "action": frame["action"].to_numpy(),
            "confidence": frame["confidence"].to_numpy(),
            "probability_up": frame["probability_up"].to_numpy(),
            "forward_return": frame[f"fwd_{h}"].to_numpy(),
            "excess_return": frame[f"exc_{h}"].to_numpy(),
        }
    )


def _by_horizon(frame: pd.DataFrame, config: TrackConfig) -> dict[str, Any]:
    return {str(h): horizon_scores(_points(frame, h), config) for h in config.horizons}


def _kind_scores(frame: pd.DataFrame, voices: pd.DataFrame, config: TrackConfig) -> dict[str, Any]:
    """All entries of one kind (live or retrospective), per mode, per model, per expert, with costs."""
    if frame.empty:
        return {"entries": 0}
    local = frame.reset_index(drop=True)
    position = pd.Series(np.arange(len(frame)), index=frame.index)  # row in the ledger -> row here
    mine = voices[voices["row"].isin(frame.index)]
    mine = mine.assign(row=position.reindex(mine["row"]).to_numpy())
    return {
        "entries": len(frame),
        "all": _by_horizon(local, config),
        "by_mode": {m: _by_horizon(part, config) for m, part in local.groupby("mode", sort=True)},
        "by_model": {m: _by_horizon(part, config) for m, part in local.groupby("model", sort=True)},
        "by_expert": expert_scores(mine, local, config.horizons),
        "cost": cost_scores(local),
        "cost_by_mode": {m: cost_scores(part) for m, part in local.groupby("mode", sort=True)},
    }


def _fraction(value: Any) -> float | None:
    return None if value is None or not np.isfinite(value) else round(float(value), 8)


def _tracked(frame: pd.DataFrame, horizons: list[int]) -> list[TrackedEntry]:
    out = []
    for r in frame.to_dict("records"):
        entry = r["entry_date"]
        fwd = {str(h): _fraction(r[f"fwd_{h}"]) for h in horizons}
        out.append(
            TrackedEntry(
                seq=r["seq"], entry_id=r["entry_id"], symbol=r["symbol"], as_of=r["as_of"],
                created_at=r["created_at"], mode=r["mode"], model=r["model"], action=r["action"],
                confidence=r["confidence"],
                probability_up=None if pd.isna(r["probability_up"]) else float(r["probability_up"]),
                retrospective=bool(r["retrospective"]), session_id=r["session_id"],
                entry_date=None if pd.isna(entry) else pd.Timestamp(entry).date(),
                filled=bool(r["filled"]), matured={h: v is not None for h, v in fwd.items()},
                forward_returns=fwd,
                excess_returns={str(h): _fraction(r[f"exc_{h}"]) for h in horizons},
            )
        )  # fmt: skip
    return out


class TrackService:
    def __init__(self, market: IEvaluationMarket, ledger: ILedgerEntries, universe: Callable[[], list[str]]):
        """`universe()`: every stored symbol (the default benchmark is their equal-weight index: the
        ledger's own symbols would make a one-symbol ledger's excess returns all zero)."""
        self._market = market
        self._ledger = ledger
        self._universe = universe

    def verify(self) -> ChainStatus:
        return self._ledger.verify()

    def run(self, config: TrackConfig) -> TrackReport:
        views = [v for v in self._ledger.entries() if config.mode is None or v.mode == config.mode]
        frame, voices = _frame(views), _voices(views)
        universe = self._universe()
        if config.benchmark and config.benchmark not in universe:
            raise NotFoundException(
                f"benchmark {config.benchmark} is not in the store", code="UNKNOWN_SYMBOL"
            )
        index = [config.benchmark] if config.benchmark else universe
        securities = self._market.securities(sorted(set(frame["symbol"]) | set(index)))
        start = min(frame["as_of"]) if len(frame) else date.today()
        bars = self._market.bars(list(securities), start, None)
        levels = benchmark_levels(bars, universe, config.benchmark)
        bars = bars[bars["symbol"].isin(set(frame["symbol"]))]
        joined = self._outcomes(frame, bars, securities, levels, config)
        retro = joined["retrospective"].astype(bool).to_numpy()
        live = _kind_scores(joined[~retro], voices, config)
        past = _kind_scores(joined[retro], voices, config)
        return TrackReport(
            config=config.model_dump(mode="json"),
            ledger={"entries": len(joined), "live": int((~retro).sum()), "retrospective": int(retro.sum())},
            headline=headline_text(live, int(retro.sum()), config.horizons),
            entries=_tracked(joined, config.horizons),
            live=live,
            retrospective=past,
            portfolio=self._books(joined, retro, bars, securities, levels, config),
            notes=[
                "live and retrospective entries (as_of more than 4 days before the entry was made) "
                "are scored apart; the headline is live only",
                "Brier, Brier skill and ECE use the verdicts' own probability_up; entries without one "
                "are uncalibrated and count only in hit rate, returns and rank IC",
                "intervals: 95% moving-block bootstrap over the entries' dates",
            ],
        )

    @staticmethod
    def _outcomes(frame, bars, securities, levels, config: TrackConfig) -> pd.DataFrame:  # type: ignore[no-untyped-def]
        if frame.empty or bars.empty:
            out = frame.assign(entry_date=pd.NaT, entry_price=np.nan, filled=False)
            for h in config.horizons:
                out[f"fwd_{h}"], out[f"exc_{h}"] = np.nan, np.nan
            return out
        return outcomes(frame, bars, securities, levels, config.horizons)

    @staticmethod
    def _books(joined, retro, bars, securities, levels, config: TrackConfig) -> dict[str, Any]:  # type: ignore[no-untyped-def]
        books: dict[str, Any] = {}
        for name, mask in (("live", ~retro), ("retrospective", retro)):
            part = joined[mask].drop_duplicates(["symbol", "as_of"], keep="last")
            if part.empty or bars.empty:
                continue
            evaluation = EvaluationConfig(
                symbols=sorted(set(part["symbol"])), start=min(part["as_of"]), end=max(part["as_of"]),
                slippage=config.slippage, capital=config.capital,
            )  # fmt: skip
            universe = bars[bars["symbol"].isin(evaluation.symbols)]
            books[name] = portfolio({"verdicts": part}, universe, securities, levels, evaluation)
        return books
