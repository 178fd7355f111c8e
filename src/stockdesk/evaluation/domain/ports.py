"""Ports of the evaluation: verdict sources by mode, the LLM's cache and meter, the scored reports."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from stockdesk.evaluation.domain.dtos import EvaluationConfig, EvaluationMode, ReportBasis, Verdict

if TYPE_CHECKING:
    from stockdesk.coordinator.application import Lesson

LessonLookup = Callable[[str, date], "list[Lesson]"]
"""(symbol, as_of) -> the lessons a reflecting judge is shown for that point."""


@dataclass(frozen=True)
class SecurityInfo:
    symbol: str
    name: str | None
    market: str


class IVerdictSource(ABC):
    """Verdicts of one mode for a batch of points, each computed as of its own date only."""

    mode: EvaluationMode
    batch_size: int = 1
    """Points per durable batch (a batch's points may run together; its results commit together)."""

    def prepare(self, config: EvaluationConfig) -> None:  # noqa: B027
        """Called once before verdicts of `config` are asked: a source that needs the whole
        universe at once (the walk-forward signal model, over the market it was built with)
        computes it here; others need nothing."""

    def use_lessons(self, lookup: LessonLookup) -> None:  # noqa: B027
        """Give each point's judge these lessons (evaluate --reflection); sources without an LLM
        judge ignore them."""

    def model_report(self) -> dict[str, Any]:
        """Per horizon, what a model-based source learned (factor weights over time, their own rank
        IC); empty for sources without a model. Read after `prepare`."""
        return {}

    @abstractmethod
    def verdicts(
        self, points: Mapping[str, Sequence[date]], experts: Sequence[str]
    ) -> dict[tuple[str, date], Verdict | Exception]:
        """One entry per (symbol, date); an Exception marks that point's task as failed."""


@dataclass
class Usage:
    """LLM calls made (cache hits excluded), cache hits, tokens and money spent inside a meter."""

    calls: int = 0
    cache_hits: int = 0
    tokens: int = 0
    cost_usd: float = 0.0


class ILLMUsage(ABC):
    @abstractmethod
    def cached_and_metered(self) -> AbstractContextManager[Usage]:
        """Inside: every LLM call goes through the response cache; the yielded Usage counts them."""


class NoLLM(ILLMUsage):
    """For rules mode and tests: nothing to cache, nothing to count."""

    def cached_and_metered(self) -> AbstractContextManager[Usage]:
        return nullcontext(Usage())


ReportPart = Literal["overview", "report"]
"""A stored report's two texts: the page's `ReportOverview` and the whole `EvaluationReport`."""


class IEvaluationReportStore(ABC):
    """Scored reports by job, with the basis they were scored from (a port: the application may not
    import the database)."""

    @abstractmethod
    def basis(self, job_id: str) -> ReportBasis | None:
        """The stored report's basis; None when the job has none stored."""

    @abstractmethod
    def read(self, job_id: str, part: ReportPart) -> str | None:
        """One part's JSON text as saved."""

    @abstractmethod
    def save(self, job_id: str, basis: ReportBasis, overview: str, report: str) -> None:
        """Store (or replace) the job's report; one transaction."""
