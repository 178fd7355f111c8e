"""Application layer: services and use cases; depends on domain ports only."""

from stockdesk.research.application.chart_data_service import ChartDataService, ChartSet
from stockdesk.research.application.rules_signal_service import RulesEvidence, RulesSignalService

__all__ = ["ChartDataService", "ChartSet", "RulesEvidence", "RulesSignalService"]
