"""Application layer: services and use cases; depends on domain ports only."""

from stockdesk.research.application.chart_data_service import ChartDataService, ChartSet
from stockdesk.research.application.dtos import ExpertResult, RulesOnlyResultDTO
from stockdesk.research.application.evidence_cards import (
    cards_for,
    financial_cards,
    technical_cards,
    valuation_cards,
)
from stockdesk.research.application.expert_results import (
    expert_result,
    rules_only_result,
    snapshot_of,
    stored,
    with_code_signal,
)
from stockdesk.research.application.expert_views import (
    InvalidExpertResult,
    expert_view,
    expert_views,
    view_of_result,
    view_of_rules,
)
from stockdesk.research.application.factors import (
    FACTOR_BY_NAME,
    FACTOR_NAMES,
    FACTORS,
    Factor,
    FactorService,
    rank_normalise,
)
from stockdesk.research.application.rules_signal_service import RulesEvidence, RulesSignalService
from stockdesk.research.application.signal_model.calibration import (
    CalibrationSettings,
    calibrate_walk_forward,
)
from stockdesk.research.application.signal_model.diagnostics import factor_report
from stockdesk.research.application.signal_model.run import trading_calendar
from stockdesk.research.application.signal_model.service import SignalModelService, model_view
from stockdesk.research.application.signal_model.walk_forward import FitSettings, known_dates, walk_forward
from stockdesk.research.domain.dtos.code_signal import CodeSignal
from stockdesk.research.domain.dtos.evidence_card import EvidenceCard
from stockdesk.research.domain.dtos.expert_view import ExpertView
from stockdesk.research.domain.dtos.model_view import ModelCalibration, ModelView

__all__ = [
    "FACTORS",
    "FACTOR_BY_NAME",
    "FACTOR_NAMES",
    "CalibrationSettings",
    "ChartDataService",
    "ChartSet",
    "CodeSignal",
    "EvidenceCard",
    "ExpertResult",
    "ExpertView",
    "Factor",
    "FactorService",
    "FitSettings",
    "InvalidExpertResult",
    "ModelCalibration",
    "ModelView",
    "RulesEvidence",
    "RulesOnlyResultDTO",
    "RulesSignalService",
    "SignalModelService",
    "calibrate_walk_forward",
    "cards_for",
    "expert_result",
    "expert_view",
    "expert_views",
    "factor_report",
    "financial_cards",
    "known_dates",
    "model_view",
    "rank_normalise",
    "rules_only_result",
    "snapshot_of",
    "stored",
    "technical_cards",
    "trading_calendar",
    "valuation_cards",
    "view_of_result",
    "view_of_rules",
    "walk_forward",
    "with_code_signal",
]
