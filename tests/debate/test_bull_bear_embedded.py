"""The bull-bear debate on the real embedded model: three calls (plus a repair per agent whose claims
failed the checks), an outcome that fits the contract."""

from __future__ import annotations

import pytest

from stockdesk.debate.domain.model.enums import DebateDirection
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMCallAuditRepository
from stockdesk.shared.config import Settings
from tests.debate.research_results import SYMBOL, views

pytestmark = pytest.mark.slow


def test_bull_bear_debate_on_the_local_model_fits_the_contract(settings: Settings) -> None:
    container = AppContainer(settings)
    try:
        with container.llm_service.run_scope("debate-embedded"):
            outcome = container.debate.service.run(SYMBOL, views())
        audit = SqlLLMCallAuditRepository(container.database).list_for_run("debate-embedded")
    finally:
        container.close()
    assert outcome.direction in set(DebateDirection) and 0.0 <= outcome.confidence <= 1.0
    assert outcome.bull_case.core_thesis.strip() and outcome.bear_case.core_thesis.strip()
    assert outcome.bull_case.supporting_arguments and outcome.bear_case.supporting_arguments
    assert 1 <= len(outcome.risk_matrix) <= 4 and outcome.key_disagreements
    assert all(r.probability in {"High", "Medium", "Low"} for r in outcome.risk_matrix)
    agents = [row["agent"] for row in outcome.audit]  # an agent whose claims failed was asked once more
    assert list(dict.fromkeys(agents)) == ["bull_advocate", "bear_advocate", "resolution"]
    assert all(agents.count(a) <= 2 for a in agents) and set(outcome.claim_checks) == set(agents)
    assert {r.caller for r in audit if r.status == "ok"} == {
        "debate.bull_advocate",
        "debate.bear_advocate",
        "debate.resolution",
    }
