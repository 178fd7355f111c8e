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

import json
from collections.abc import Callable
from datetime import date
from typing import Any

import numpy as np
import pandas as pd

from stockdesk.coordinator.application import Lesson
from stockdesk.evaluation.application.ledger_entries import LedgerEntries
from stockdesk.evaluation.application.lessons import known_lessons
from stockdesk.evaluation.application.market import EvaluationMarket
from stockdesk.evaluation.application.scoring import benchmark_levels, outcomes, portfolio
from stockdesk.evaluation.application.track_scores import cost_scores, expert_scores, horizon_scores
from stockdesk.evaluation.application.track_text import headline_horizon, headline_text
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.evaluation.domain.track import (
    ChainStatus,
    TrackConfig,
    TrackedEntry,
    TrackReport,
)
from stockdesk.ledger.application import LedgerColumns
from stockdesk.shared.errors import NotFoundException

COLUMNS = [
    "seq", "entry_id", "symbol", "as_of", "created_at", "mode", "model", "action", "confidence",
    "position_percent", "probability_up", "session_id", "tokens", "llm_calls", "cost_usd", "retrospective",
]  # fmt: skip


TEXT = ("entry_id", "symbol", "mode", "model", "action", "session_id")


def _frame(table: LedgerColumns, mode: str | None) -> pd.DataFrame:
    """One row per entry (of `mode`, when given); text columns as plain objects (the scores iterate
    labels, and pandas' str arrays iterate slowly)."""
    frame = pd.DataFrame({c: pd.Series(getattr(table, c), dtype=object) for c in [*COLUMNS, "experts_json"]})
    for column in ("confidence", "position_percent", "probability_up", "cost_usd", "tokens", "llm_calls"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    if mode is not None:
        frame = frame[frame["mode"] == mode].reset_index(drop=True)
    return frame


def _voices(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (entry, expert): the entry's row in `frame`, the expert, its stance and confidence."""
    parsed: dict[str, list[tuple[str, str, float]]] = {}  # each distinct text parsed once

    def voices_of(text: str) -> list[tuple[str, str, float]]:
        if text not in parsed:
            loaded = json.loads(text or "{}").items()
            parsed[text] = [(name, v["stance"], float(v["confidence"])) for name, v in loaded]
        return parsed[text]

    rows = [(i, *voice) for i, text in enumerate(frame["experts_json"]) for voice in voices_of(text)]
    return pd.DataFrame(
        {
            "row": np.array([r[0] for r in rows], dtype=int),
            "expert": pd.Series([r[1] for r in rows], dtype=object),
            "stance": pd.Series([r[2] for r in rows], dtype=object),
            "confidence": np.array([r[3] for r in rows], dtype=float),
        }
    )


PROBABILITY_HORIZON = 20  # a ledger entry's probability_up is P(up) over the verdict's 20 trading days


def _points(frame: pd.DataFrame, h: int) -> pd.DataFrame:
    """One horizon's points; the stated probability is scored only at the horizon it states
    (elsewhere the entries count as uncalibrated rather than being held to another horizon)."""
    probability = frame["probability_up"].to_numpy(dtype=float)
    return pd.DataFrame(
        {
            "as_of": frame["as_of"].to_numpy(),
            "symbol": pd.Series(frame["symbol"].to_numpy(dtype=object), dtype=object),
            "action": pd.Series(frame["action"].to_numpy(dtype=object), dtype=object),
            "confidence": frame["confidence"].to_numpy(),
            "probability_up": probability if h == PROBABILITY_HORIZON else np.full(len(frame), np.nan),
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
    everything = _by_horizon(local, config)
    return {
        "entries": len(frame),
        "all": everything,
        "by_mode": _per_group(local, "mode", everything, config),
        "by_model": _per_group(local, "model", everything, config),
        "by_expert": expert_scores(mine, local, config),
        "cost": cost_scores(local),
        "cost_by_mode": {m: cost_scores(part) for m, part in local.groupby("mode", sort=True)},
    }


def _per_group(frame: pd.DataFrame, column: str, everything: dict[str, Any], config: TrackConfig) -> dict:  # type: ignore[type-arg]
    """Scores per value of `column`; a single value's scores are the kind's own (not computed twice)."""
    values = sorted(set(frame[column]))
    if len(values) == 1:
        return {values[0]: everything}
    return {v: _by_horizon(frame[frame[column] == v], config) for v in values}


def _rounded(values: pd.Series) -> list[float | None]:
    """Fractions rounded to 1e-8, None where unknown (as evaluate's points)."""
    array = np.round(values.to_numpy(dtype=float), 8)
    return [None if np.isnan(v) else float(v) for v in array]


def _tracked(frame: pd.DataFrame, horizons: list[int]) -> list[TrackedEntry]:
    """The entries as the JSON lists them (built column-wise: 100,000 entries in about a second)."""
    keys = [str(h) for h in horizons]
    fwd = list(zip(*[_rounded(frame[f"fwd_{h}"]) for h in horizons], strict=True))
    exc = list(zip(*[_rounded(frame[f"exc_{h}"]) for h in horizons], strict=True))
    entry = pd.to_datetime(frame["entry_date"])
    entry_dates = [None if d is None else d.date() for d in entry.astype(object).where(entry.notna(), None)]
    prob = [None if np.isnan(p) else float(p) for p in frame["probability_up"].to_numpy(dtype=float)]
    session = [v if isinstance(v, str) else None for v in frame["session_id"]]
    cols = {
        c: frame[c].tolist() for c in ("seq", "entry_id", "symbol", "as_of", "created_at", "mode", "model")
    }
    actions, confidence = frame["action"].tolist(), frame["confidence"].astype(float).tolist()
    retro, filled = frame["retrospective"].astype(bool).tolist(), frame["filled"].astype(bool).tolist()
    construct = TrackedEntry.model_construct
    return [
        construct(
            seq=cols["seq"][i], entry_id=cols["entry_id"][i], symbol=cols["symbol"][i],
            as_of=cols["as_of"][i], created_at=cols["created_at"][i], mode=cols["mode"][i],
            model=cols["model"][i], action=actions[i],
            confidence=confidence[i], probability_up=prob[i], retrospective=retro[i], session_id=session[i],
            entry_date=entry_dates[i], filled=filled[i],
            matured={k: v is not None for k, v in zip(keys, fwd[i], strict=True)},
            forward_returns=dict(zip(keys, fwd[i], strict=True)),
            excess_returns=dict(zip(keys, exc[i], strict=True)),
        )
        for i in range(len(frame))
    ]  # fmt: skip


class TrackService:
    def __init__(self, market: EvaluationMarket, ledger: LedgerEntries, universe: Callable[[], list[str]]):
        """`universe()`: every stored symbol (the default benchmark is their equal-weight index: the
        ledger's own symbols would make a one-symbol ledger's excess returns all zero)."""
        self._market_data = market
        self._ledger = ledger
        self._universe = universe

    def verify(self) -> ChainStatus:
        return self._ledger.verify()

    def _market(self, frame: pd.DataFrame, config: TrackConfig) -> tuple[Any, pd.DataFrame, pd.DataFrame]:
        """Securities, the entries' bars (from their first as_of) and the benchmark's levels."""
        universe = self._universe()
        if config.benchmark and config.benchmark not in universe:
            raise NotFoundException(
                f"benchmark {config.benchmark} is not in the store", code="UNKNOWN_SYMBOL"
            )
        index = [config.benchmark] if config.benchmark else universe
        securities = self._market_data.securities(sorted(set(frame["symbol"]) | set(index)))
        start = min(frame["as_of"]) if len(frame) else date.today()
        bars = self._market_data.bars(list(securities), start, None)
        levels = benchmark_levels(bars, universe, config.benchmark)
        return securities, bars[bars["symbol"].isin(set(frame["symbol"]))], levels

    def headline(self, config: TrackConfig | None = None) -> str:
        """The one-line track record alone (the analysis report prints it): live entries only, at
        the headline horizon, without the per-group scores, the entries list or the book."""
        scores, retrospective, h = self.headline_scores(config)
        return headline_text(scores, retrospective, [h])

    def headline_scores(self, config: TrackConfig | None = None) -> tuple[dict[str, Any], int, int]:
        """The headline's figures (the live scores at the headline horizon, the retrospective
        entries, the horizon): what a page words in its own language."""
        config = config or TrackConfig()
        frame = _frame(self._ledger.entries(), config.mode)
        retro = frame["retrospective"].astype(bool).to_numpy()
        live = frame[~retro].reset_index(drop=True)
        h = headline_horizon(config.horizons)
        if live.empty:
            return {"entries": 0}, int(retro.sum()), h
        config = config.model_copy(update={"horizons": [h]})
        securities, bars, levels = self._market(live, config)
        joined = self._outcomes(live, bars, securities, levels, config)
        scores = {"entries": len(live), "all": {str(h): horizon_scores(_points(joined, h), config)}}
        return scores, int(retro.sum()), h

    def lessons(self, symbol: str, as_of: date) -> list[Lesson]:
        """A reflecting judge's lessons (the coordinator's LessonSource): the ledger's verdicts on
        `symbol` dated before `as_of` whose 20-day outcome the bars held by `as_of`, newest first,
        live and retrospective alike (what was said and what followed, not a headline figure)."""
        frame = _frame(self._ledger.entries(), None)
        frame = frame[frame["symbol"] == symbol].reset_index(drop=True)
        if frame.empty:
            return []
        securities, bars, levels = self._market(frame, TrackConfig())
        return known_lessons(frame, bars, securities, levels, symbol, as_of)

    def run(self, config: TrackConfig, *, entries: bool = True) -> TrackReport:
        """The whole track record; `entries=False` leaves the per-entry list out (a page that shows
        only the scores need not build 100,000 rows)."""
        frame = _frame(self._ledger.entries(), config.mode)
        voices = _voices(frame)
        securities, bars, levels = self._market(frame, config)
        joined = self._outcomes(frame, bars, securities, levels, config)
        retro = joined["retrospective"].astype(bool).to_numpy()
        live = _kind_scores(joined[~retro], voices, config)
        past = _kind_scores(joined[retro], voices, config)
        return TrackReport(
            config=config.model_dump(mode="json"),
            ledger={"entries": len(joined), "live": int((~retro).sum()), "retrospective": int(retro.sum())},
            headline=headline_text(live, int(retro.sum()), config.horizons),
            entries=_tracked(joined, config.horizons) if entries else [],
            live=live,
            retrospective=past,
            portfolio=self._books(joined, retro, bars, securities, levels, config),
            notes=[
                "live and retrospective entries (as_of more than 4 days before the entry was made) "
                "are scored apart; the headline is live only",
                "Brier, Brier skill and ECE use the verdicts' own probability_up; entries without one "
                "are uncalibrated and count only in hit rate, returns and rank IC",
                "a verdict states probability_up for its own horizon (the signal model's: 20 trading "
                "days, the headline's); at other horizons the same number is scored against their outcomes",
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
        """One follow-the-verdicts book per kind (curves `live`, `retrospective`), on one trading panel."""
        kinds = {
            name: joined[mask].drop_duplicates(["symbol", "as_of"], keep="last")
            for name, mask in (("live", ~retro), ("retrospective", retro))
        }
        kinds = {name: part for name, part in kinds.items() if not part.empty}
        if not kinds or bars.empty:
            return {}
        every = pd.concat(kinds.values())
        evaluation = EvaluationConfig(
            symbols=sorted(set(every["symbol"])), start=min(every["as_of"]), end=max(every["as_of"]),
            slippage=config.slippage, capital=config.capital,
        )  # fmt: skip
        return portfolio(kinds, bars, securities, levels, evaluation)
