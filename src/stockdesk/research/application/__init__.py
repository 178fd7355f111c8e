"""Application layer: services and use cases; depends on domain ports only."""

from stockdesk.research.application.chart_data_service import ChartDataService, ChartSet
from stockdesk.research.application.factors import (
    FACTOR_BY_NAME,
    FACTOR_NAMES,
    FACTORS,
    Factor,
    FactorService,
    rank_normalise,
)
from stockdesk.research.application.rules_signal_service import RulesEvidence, RulesSignalService

__all__ = [
    "FACTORS",
    "FACTOR_BY_NAME",
    "FACTOR_NAMES",
    "ChartDataService",
    "ChartSet",
    "Factor",
    "FactorService",
    "RulesEvidence",
    "RulesSignalService",
    "rank_normalise",
]
