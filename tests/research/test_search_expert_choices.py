"""Choices mode for the search experts: articles quoted as cards by code, the model picks.

The store holds four AAPL articles (one after the as-of date); the local news index is the search.
"""

from __future__ import annotations

import json
from datetime import date

from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.domain.dtos import CompletionRequest
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.research.application import expert_view
from stockdesk.shared.config import Settings
from tests.conftest import scripted_service
from tests.research.search_support import store_with_news
from tests.research.test_search_experts import NEWS

AS_OF = date(2024, 3, 1)


class Script:
    def __init__(self, answer: dict[str, object]):
        self.answer = json.dumps(answer)
        self.requests: list[CompletionRequest] = []

    def __call__(self, request: CompletionRequest) -> str:
        self.requests.append(request)
        return self.answer


def run(settings: Settings, expert: str, answer: dict[str, object]) -> tuple[object, Script]:
    script = Script(answer)
    container = AppContainer(
        settings, llm_service=scripted_service(ScriptedProvider([script]), output_style="choices")
    )
    store_with_news(container.database, list(NEWS))
    return getattr(container.research, expert).run("AAPL", AS_OF), script


def card_of(script: Script, title: str) -> str:
    """The id of the card the prompt lists for the article `title` (a line `- [id] 《title》...`)."""
    line = next(x for x in script.requests[0].messages[-1].content.splitlines() if title in x)
    card_id = line.split("[", 1)[1].split("]", 1)[0]
    schema = script.requests[0].json_schema or {}
    assert card_id in schema["anyOf"][0]["properties"]["cards"]["items"]["enum"]
    return card_id


def test_macro_picks_articles_and_code_writes_the_summary(settings: Settings) -> None:
    probe, script = run(
        settings, "macro_intelligence", {"verdict": "Neutral", "confidence": 0.4, "cards": []}
    )
    fed = card_of(script, "Federal Reserve holds interest rates")
    result, script = run(
        settings, "macro_intelligence", {"verdict": "Unfavorable", "confidence": 0.6, "cards": [fed]}
    )
    prompt = script.requests[0].messages[-1].content
    assert "《Federal Reserve holds interest rates》" in prompt and "after the as-of date" not in prompt
    assert result.macro_environment == "Unfavorable" and result.confidence_score == 0.6
    assert result.macro_summary.startswith("不利。所选资料：《Federal Reserve holds interest rates》")
    assert result.information_sources == ["https://ex.com/fed"]
    assert result.key_opportunities == [] and result.key_risks == []  # code does not sign an article
    assert [c.id for c in result.evidence_cards] == [fed] and result.evidence_cards[0].direction == 0
    view = expert_view("macro_intelligence", result)
    assert view.stance == "bearish" and [c.id for c in view.cards] == [fed]
    assert probe.macro_environment == "Neutral" and probe.macro_summary == "中性。未选出资料。"


def test_catalyst_lists_no_event_it_cannot_sign(settings: Settings) -> None:
    _, probe = run(settings, "catalyst_detective", {"verdict": "Neutral", "confidence": 0.4, "cards": []})
    earnings = card_of(probe, "Apple earnings beat estimates")
    result, _ = run(
        settings, "catalyst_detective", {"verdict": "Positive", "confidence": 0.7, "cards": [earnings]}
    )
    assert result.catalyst_assessment == "Positive" and result.catalyst_summary.startswith(
        "正面。所选资料：《"
    )
    assert result.positive_catalysts == [] and result.negative_catalysts == []
    assert len(result.information_sources) == 1 and result.information_sources[0].startswith(
        "https://ex.com/"
    )
    picked = [d for d in result.dimension_analyses if d.key_points]
    assert len(picked) == 1 and picked[0].key_points[0].startswith("《")
