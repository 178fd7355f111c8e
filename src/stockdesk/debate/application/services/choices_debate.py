"""The bull-bear debate in choices mode: three calls that pick card ids; code writes the outcome.

The bull and bear pick at the same time (neither sees the other), then the resolution picks its
direction and decisive cards having read both cases as code wrote them. No claim check is needed
on the sentences (code wrote them from the cards); the picks go through the direction round
(application/choices.py), recorded per agent in `claim_checks` and in `choices`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stockdesk.debate.application.choice_text import (
    bear_case,
    bull_case,
    cases_text,
    conclusion,
    disagreement,
    render_case,
)
from stockdesk.debate.application.choices import ChoiceRound, checked_choice
from stockdesk.debate.application.dtos.outcome_dto import DebateOutcomeDTO
from stockdesk.debate.application.parallel import run_in_parallel
from stockdesk.debate.domain.model.enums import DebateMode
from stockdesk.debate.domain.ports.agents import ChoiceQuestion, IChoiceAgentPort
from stockdesk.research.application import ExpertView


def _audit(rounds: dict[str, ChoiceRound]) -> list[dict[str, Any]]:
    return [
        {"agent": a.agent, "input": a.input, "output": a.output, "tokens": a.tokens}
        for r in rounds.values()
        for a in r.answers
    ]


def run_choices(chooser: IChoiceAgentPort, symbol: str, views: Sequence[ExpertView]) -> DebateOutcomeDTO:
    cards = {card.id: card for view in views for card in view.cards}
    bull, bear = run_in_parallel(
        [
            lambda: checked_choice(
                lambda fb: chooser.answer(ChoiceQuestion("bull", symbol, views), fb), "bull", cards
            ),
            lambda: checked_choice(
                lambda fb: chooser.answer(ChoiceQuestion("bear", symbol, views), fb), "bear", cards
            ),
        ],
        name="debate-chooser",
    )
    bull_out, bear_out = bull_case(bull.picks, cards), bear_case(bear.picks, cards)
    cases = cases_text(bull_out, bear_out)
    resolution = checked_choice(
        lambda fb: chooser.answer(ChoiceQuestion("resolution", symbol, views, cases), fb), "resolution", cards
    )
    picks = resolution.picks
    direction, decisive = str(picks["direction"]), list(picks["decisive"])
    rounds = {"bull_advocate": bull, "bear_advocate": bear, "resolution": resolution}
    english = {
        "bull": render_case("bull", bull.picks, cards, "en").model_dump(),
        "bear": render_case("bear", bear.picks, cards, "en").model_dump(),
        "conclusion": conclusion(direction, decisive, cards, "en"),
        "disagreements": [disagreement(p, cards, "en") for p in picks["disagreements"]],
    }
    return DebateOutcomeDTO(
        symbol=symbol,
        direction=direction,
        confidence=float(picks["confidence"]),
        bull_case=bull_out,
        bear_case=bear_out,
        risk_matrix=[],  # probability and impact levels are not code's to invent, nor the picks'
        key_disagreements=[disagreement(p, cards, "zh") for p in picks["disagreements"]],
        conflict_resolution=conclusion(direction, decisive, cards, "zh"),
        mode=DebateMode.BULL_BEAR.value,
        experts_considered=[v.expert for v in views],
        audit=_audit(rounds),
        claim_checks={name: r.record for name, r in rounds.items()},
        choices={
            "style": "choices",
            "picks": {"bull": bull.picks, "bear": bear.picks, "resolution": picks},
            "english": english,
        },
    )
