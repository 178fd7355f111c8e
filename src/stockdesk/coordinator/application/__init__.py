"""Application interface of the coordinator: the research pipeline and its sessions.

The graph (`build_research_graph`, `ResearchGraphState`) loads LangGraph on first use only."""

from typing import TYPE_CHECKING, Any

from stockdesk.coordinator.application.analysis_runs import AnalysisProgress, AnalysisRuns
from stockdesk.coordinator.application.coordinator_service import LessonSource, ResearchCoordinatorService
from stockdesk.coordinator.application.day_verdicts import (
    DayRun,
    RulesDayVerdicts,
    SymbolVerdict,
    symbol_verdict,
)
from stockdesk.coordinator.application.experts import SHORT_NAMES, parse_experts
from stockdesk.coordinator.domain.dtos.session import (
    Lesson,
    NodeExecution,
    ResearchRequest,
    ResearchSession,
    SessionPage,
    SessionSummary,
)
from stockdesk.coordinator.domain.model.enums import (
    ALL_EXPERTS,
    DebateModeName,
    ExpertName,
    NodeStatus,
    SessionStatus,
)

if TYPE_CHECKING:
    from stockdesk.coordinator.application.graph import ResearchGraphState, build_research_graph

__all__ = [
    "ALL_EXPERTS",
    "SHORT_NAMES",
    "AnalysisProgress",
    "AnalysisRuns",
    "DayRun",
    "DebateModeName",
    "ExpertName",
    "Lesson",
    "LessonSource",
    "NodeExecution",
    "NodeStatus",
    "ResearchCoordinatorService",
    "ResearchGraphState",
    "ResearchRequest",
    "ResearchSession",
    "RulesDayVerdicts",
    "SessionPage",
    "SessionStatus",
    "SessionSummary",
    "SymbolVerdict",
    "build_research_graph",
    "parse_experts",
    "symbol_verdict",
]


def __getattr__(name: str) -> Any:
    if name in ("ResearchGraphState", "build_research_graph"):
        from stockdesk.coordinator.application import graph

        return getattr(graph, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
