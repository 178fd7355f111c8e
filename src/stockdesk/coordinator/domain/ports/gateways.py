"""How the coordinator reaches other contexts: ports here, adapters convert, so the pipeline is
tested with fakes and never imports another context's internals (judge-design.md, Decision 5).

Async so that LangGraph runs the fan-out concurrently; adapters move blocking work to threads.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from datetime import date
from typing import Any

from pydantic import BaseModel

from stockdesk.research.application import ExpertResult, ExpertView, ModelView, RulesOnlyResultDTO

ModelViewBuilder = Callable[[str, date], ModelView | None]
"""(symbol, as_of) -> the signal model's verdict there (research.SignalModelService.view)"""


class CheckedDate(BaseModel):
    """The date a session runs as of; `clamped`: none was asked, the newest stored bar's was taken."""

    as_of: date | None
    clamped: bool = False
    first: date | None = None
    last: date | None = None

    def note(self) -> dict[str, Any]:
        """What the session's aggregation records of it (the report says a clamped date in words)."""
        if self.first is None:
            return {}
        last = self.last.isoformat() if self.last else None
        return {"stored_bars": {"first": self.first.isoformat(), "last": last}, "as_of_clamped": self.clamped}


class IResearchGateway(ABC):
    @abstractmethod
    def require_symbol(self, symbol: str) -> str:
        """The symbol as the store spells it; NotFoundException before any expert runs."""

    def check_as_of(self, symbol: str, as_of: date | None) -> CheckedDate:
        """The date inside the symbol's stored bars (BadRequest AS_OF_OUT_OF_RANGE outside them; the
        newest bar's date when none is asked). Not abstract: a double without a store keeps the date."""
        return CheckedDate(as_of=as_of)

    @abstractmethod
    async def run_expert(self, expert: str, symbol: str, as_of: date | None) -> ExpertResult:
        """One research expert's typed result, with its `code_signal`."""

    @abstractmethod
    async def run_expert_rules(self, expert: str, symbol: str, as_of: date | None) -> RulesOnlyResultDTO:
        """The expert's snapshot and code-only signal, no LLM (rules-only mode, plan prices)."""

    async def model_view(self, symbol: str, as_of: date | None) -> ModelView | None:
        """The walk-forward signal model's verdict at `as_of` (what the rules verdict is). Not
        abstract: a gateway without a store has no model (the rules fall back to the composite)."""
        return None

    async def build_charts(
        self, symbol: str, as_of: date | None
    ) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """The research charts (ChartSpec dicts: price, valuation, financials) and, by chart, why one
        could not be built. Not abstract: a gateway without chart data simply gives none."""
        return [], {}


class IDebateGateway(ABC):
    @abstractmethod
    async def run_debate(
        self, symbol: str, views: list[ExpertView], mode: str, as_of: date | None
    ) -> dict[str, Any]:
        """The DebateOutcome, serialised."""


class IJudgeGateway(ABC):
    @abstractmethod
    async def run_verdict(
        self, symbol: str, debate_outcome: dict[str, Any], evidence: dict[str, Any], samples: int = 1
    ) -> dict[str, Any]:
        """Execute the verdict; returns the VerdictDTO serialised.

        `evidence`: stances, code_signals, technical (the snapshot with the as-of prices), facts.
        """

    @abstractmethod
    async def rules_verdict(self, symbol: str, evidence: dict[str, Any]) -> dict[str, Any]:
        """The code-only verdict from the same evidence, no LLM."""

    def sufficient(self, experts_with_data: list[str]) -> bool:
        """Whether a verdict may rest on these experts (the judge's rule; a double: always). When not,
        the debate is skipped and the judge answers `insufficient evidence` without the LLM."""
        return True
