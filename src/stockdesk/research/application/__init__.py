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
from stockdesk.research.application.signal_model.service import SignalModelService, model_view
from stockdesk.research.domain.dtos.model_view import ModelCalibration, ModelView

__all__ = [
    "FACTORS",
    "FACTOR_BY_NAME",
    "FACTOR_NAMES",
    "ChartDataService",
    "ChartSet",
    "Factor",
    "FactorService",
    "ModelCalibration",
    "ModelView",
    "RulesEvidence",
    "RulesSignalService",
    "SignalModelService",
    "model_view",
    "rank_normalise",
]
