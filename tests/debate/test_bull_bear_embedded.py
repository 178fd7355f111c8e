"""The bull-bear debate on the real embedded model, in its default choices mode: three calls that
pick card ids (plus one re-ask per agent whose picks broke the direction rules), an outcome whose
every sentence code wrote from the cards."""

from __future__ import annotations

import pytest

from stockdesk.debate.domain.model.enums import DebateDirection
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.persistence.repositories import SqlLLMStore
from stockdesk.shared.config import Settings
from tests.debate.research_results import SYMBOL, views

pytestmark = pytest.mark.slow


def test_bull_bear_debate_on_the_local_model_fits_the_contract(settings: Settings) -> None:
    container = AppContainer(settings)
    try:
        with container.llm_service.run_scope("debate-embedded"):
            outcome = container.debate.service.run(SYMBOL, views())
        audit = SqlLLMStore(container.database).list_for_run("debate-embedded")
    finally:
        container.close()
    assert outcome.direction in set(DebateDirection) and 0.0 <= outcome.confidence <= 1.0
    assert outcome.choices["style"] == "choices" and outcome.risk_matrix == []
    cards = {c.id: c for v in views() for c in v.cards}
    picks = outcome.choices["picks"]
    assert all(cards[c].direction >= 0 for c in picks["bull"]["support"])  # enforced in code
    assert all(cards[c].direction <= 0 for c in picks["bear"]["support"])
    texts = [outcome.bull_case.core_thesis, outcome.bear_case.core_thesis, outcome.conflict_resolution]
    texts += [*outcome.bull_case.supporting_arguments, *outcome.bear_case.supporting_arguments]
    assert all(t.endswith("。") for t in texts + outcome.key_disagreements)
    agents = [row["agent"] for row in outcome.audit]  # an agent whose picks were wrong was asked once more
    assert list(dict.fromkeys(agents)) == ["bull_choices", "bear_choices", "resolution_choices"]
    assert all(agents.count(a) <= 2 for a in agents)
    assert {r.caller for r in audit if r.status == "ok"} == {
        "debate.choices.bull",
        "debate.choices.bear",
        "debate.choices.resolution",
    }
