"""Code-only signals for many (symbol, date) points at once: what `evaluate --mode rules` reads.

The numeric experts (valuation, technical, financial) go through the batch path: history loaded
once per run, per date only the fields their code signals read (RulesFieldsBuilder). The search
experts (macro, catalyst) build their snapshot per point through their own service, since their
input is a point-in-time search. Every signal comes from `code_signal`, the same function the
analysis path uses; the technical fields also carry the prices the trade plan sizes from.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.research.application.code_signals import code_signal
from stockdesk.research.application.factors import FactorService
from stockdesk.research.application.rules_history import RulesHistory
from stockdesk.research.application.snapshot.rules_fields import RulesFieldsBuilder
from stockdesk.shared.errors import StockdeskError
from stockdesk.shared.tasks.cancel import JobCancelled

logger = logging.getLogger(__name__)
BATCH_EXPERTS = ("valuation_modeler", "technical_analyst", "financial_auditor")
SnapshotBuilder = Callable[[str, date], BaseModel]


class RulesEvidence(BaseModel):
    """One point's code signals (by expert), the technical fields for the plan, and what failed."""

    code_signals: dict[str, dict[str, Any]] = Field(default_factory=dict)
    technical: dict[str, Any] | None = None
    errors: dict[str, str] = Field(default_factory=dict)


class RulesSignalService:
    def __init__(
        self,
        history: RulesHistory,
        fields: RulesFieldsBuilder,
        search_snapshots: Mapping[str, SnapshotBuilder] | None = None,
        nothing_to_find: Callable[[date], bool] = lambda day: False,
        factors: FactorService | None = None,
    ):
        """`search_snapshots[expert](symbol, as_of)` builds a search expert's snapshot;
        `nothing_to_find(day)` is True when a search as of `day` can only come back empty (the
        store holds no text published by then and no web provider is configured): the search
        experts then have no data without running their searches."""
        self._history = history
        self._fields = fields
        self._search = dict(search_snapshots or {})
        self._nothing_to_find = nothing_to_find
        self.factors = factors
        """the factor library over the same store: what the walk-forward signal model reads"""

    def evidence(
        self, points: Mapping[str, Sequence[date]], experts: Sequence[str]
    ) -> dict[str, dict[date, RulesEvidence]]:
        """Per symbol and date; a symbol the store does not know gets an error on each date."""
        unknown = [e for e in experts if e not in BATCH_EXPERTS and e not in self._search]
        if unknown:
            raise StockdeskError(f"no rules signal for expert(s): {', '.join(unknown)}")
        all_dates = [d for dates in points.values() for d in dates]
        if not all_dates:
            return {}
        histories = self._history.load(list(points), min(all_dates), max(all_dates))
        out: dict[str, dict[date, RulesEvidence]] = {}
        for symbol, dates in points.items():
            history = histories.get(symbol)
            if history is None:
                out[symbol] = {d: RulesEvidence(errors={"*": f"{symbol} is not in the store"}) for d in dates}
                continue
            fields = self._fields.fields(history, list(dates))
            out[symbol] = {d: self._point(symbol, d, fields[d], experts) for d in dates}
        return out

    def _point(
        self, symbol: str, day: date, fields: Mapping[str, Any], experts: Sequence[str]
    ) -> RulesEvidence:
        evidence = RulesEvidence()
        technical = fields.get("technical_analyst")
        if isinstance(technical, Mapping):
            evidence.technical = dict(technical)  # the plan needs it even when the expert is not asked
        for expert in experts:
            snapshot: Any = (
                fields.get(expert) if expert in BATCH_EXPERTS else self._search_snapshot(expert, symbol, day)
            )
            if isinstance(snapshot, str):
                evidence.errors[expert] = snapshot
                continue
            evidence.code_signals[expert] = code_signal(expert, snapshot).model_dump(mode="json")
        return evidence

    def _search_snapshot(self, expert: str, symbol: str, day: date) -> dict[str, Any] | str:
        if self._nothing_to_find(day):
            return {"dimensions": []}  # what the search path yields when every search is empty
        try:
            return self._search[expert](symbol, day).model_dump(mode="json")
        except JobCancelled:  # a stop, not a search that found nothing
            raise
        except StockdeskError as exc:
            return f"{type(exc).__name__}: {exc}"
