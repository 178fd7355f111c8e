"""`evaluate` points obey "no evidence, no verdict" in every mode: a point resting on fewer than two
experts with data is HOLD at confidence 0 with no position, marked `insufficient`."""

from __future__ import annotations

from datetime import UTC, date, datetime

from stockdesk.coordinator.application import ResearchSession
from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.evaluation.infrastructure.adapters.coordinator_source import CoordinatorVerdictSource
from stockdesk.evaluation.infrastructure.adapters.rules_source import RulesVerdictSource
from stockdesk.research.application import RulesEvidence
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.evaluation.market import populate, symbols

DAY = date(2024, 1, 2)
WITH_DATA = {"expert": "x", "stance": "bullish", "score": 0.6, "confidence": 0.66, "has_data": True}
WITHOUT_DATA = {"expert": "x", "stance": "neutral", "score": 0.0, "confidence": 0.0, "has_data": False}


def test_a_rules_point_with_one_expert_holding_data_is_insufficient() -> None:
    source = RulesVerdictSource(lambda: None, lambda: None, None)  # type: ignore[arg-type,return-value]
    found = RulesEvidence(code_signals={"financial_auditor": WITH_DATA, "technical_analyst": WITHOUT_DATA})
    verdict = source._verdict(None, "AAA.SH", DAY, found)  # type: ignore[arg-type]
    assert not isinstance(verdict, Exception)
    assert (verdict.action, verdict.confidence, verdict.position_percent) == ("HOLD", 0.0, 0.0)
    assert verdict.evidence == "insufficient" and verdict.experts == {}


def test_a_coordinator_point_keeps_the_sessions_evidence_and_only_voices_with_data() -> None:
    session = ResearchSession(
        id="s1",
        symbol="AAA.SH",
        as_of=DAY,
        experts=["valuation_modeler", "technical_analyst"],
        started_at=datetime.now(UTC),
        verdict={"action": "HOLD", "confidence": 0.0, "position_percent": 0.0, "evidence": "insufficient"},
        aggregation={
            "stances": {"valuation_modeler": "bullish"},  # the technical analyst had 0 bars: no voice
            "digests": [
                {"expert": "valuation_modeler", "signal": "Undervalued", "confidence": 0.7},
                {"expert": "technical_analyst", "signal": "Neutral", "confidence": 0.5},
            ],
        },
    )
    verdict = CoordinatorVerdictSource._verdict(session)
    assert verdict.evidence == "insufficient" and verdict.confidence == 0.0
    assert list(verdict.experts) == ["valuation_modeler"]


def test_an_evaluation_asking_one_expert_has_only_insufficient_points(
    settings: Settings, database: Database
) -> None:
    names = symbols(3)
    populate(database, names)
    container = AppContainer(settings)
    try:
        config = EvaluationConfig(
            symbols=names, start=date(2023, 3, 1), end=date(2023, 6, 30), every=20, horizons=[5],
            experts=["technical_analyst"],
        )  # fmt: skip
        report = container.evaluation.service.run(config)
    finally:
        container.close()
    assert report.points and not report.failed
    for point in report.points:
        assert point.evidence == "insufficient" and point.action == "HOLD"
        assert point.confidence == 0.0 and point.position_percent == 0.0
