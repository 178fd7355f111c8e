"""Choices mode's one checking round: picks read against the cards' code-given directions.

A bull may support only with cards read bullish or neutral (direction >= 0) and concede only
bearish ones (< 0); a bear the mirror image; the resolution's decisive cards must agree with its
direction (BULLISH: >= 0, BEARISH: <= 0) and each disagreement pairs a bullish with a bearish card.
A wrong pick (or an id that names no card, from a provider without grammar) is re-asked once with
the reasons; what is still wrong after that is dropped and recorded, never replaced by a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from stockdesk.debate.domain.dtos.choices import SIDES, ChoiceRole
from stockdesk.debate.domain.ports.agents import AgentAnswer
from stockdesk.research.application import EvidenceCard
from stockdesk.shared.claims import checked_round, listed, refused_picks
from stockdesk.shared.claims import kept_picks as kept
from stockdesk.shared.errors import LLMOutputParseError

DECISIVE = {"BULLISH": {1, 0}, "BEARISH": {-1, 0}, "NEUTRAL": {-1, 0, 1}}
Picks = dict[str, Any]


@dataclass
class ChoiceRound:
    """The calls made (for the audit), the picks kept and what was refused on the way."""

    answers: list[AgentAnswer[BaseModel]]
    picks: Picks
    record: dict[str, Any] = field(default_factory=dict)


def _allowed(role: ChoiceRole, picks: Picks) -> dict[str, set[int]]:
    if role == "resolution":
        return {"decisive": DECISIVE[str(picks.get("direction"))]}
    support, concede = SIDES[role]  # the same directions the schema shows (domain/dtos/choices.py)
    return {"support": support, "concede": concede}


def wrong_picks(role: ChoiceRole, picks: Picks, cards: Mapping[str, EvidenceCard]) -> list[str]:
    """Each refused pick as `<field>:<id>：reason`, in the order given."""
    directions = {card_id: int(card.direction) for card_id, card in cards.items()}
    wrong = refused_picks(picks, _allowed(role, picks), directions, "不符合该栏的方向")
    for pair in picks.get("disagreements") or []:
        sides = sorted(cards[c].direction for c in pair if c in cards)
        if len(pair) != 2 or sides != [-1, 1]:
            wrong.append(f"disagreements:{'/'.join(pair)}：每组须是一张利多卡和一张利空卡")
    return wrong


def kept_picks(role: ChoiceRole, picks: Picks, wrong: list[str]) -> Picks:
    """`picks` without the refused ones (ids unique, order kept)."""
    out = kept(picks, list(_allowed(role, picks)), wrong)
    if role == "resolution":
        refused = {w.split("：", 1)[0] for w in wrong}
        pairs = picks.get("disagreements") or []
        out["disagreements"] = [p for p in pairs if f"disagreements:{'/'.join(p)}" not in refused]
    return out


FEEDBACK_HEADER = "以下选择不符合规则，请重新选择（只用列出的卡号，方向须一致）："


def checked_choice(
    ask: Callable[[str | None], AgentAnswer[BaseModel]], role: ChoiceRole, cards: Mapping[str, EvidenceCard]
) -> ChoiceRound:
    """`ask(feedback)` is one call; see the module docstring for the round (shared.claims.checked_round)."""
    done = checked_round(
        ask,
        lambda a: wrong_picks(role, a.parsed.model_dump(mode="json"), cards),
        listed(FEEDBACK_HEADER),
        unparsed=(LLMOutputParseError,),
    )
    picks = kept_picks(role, done.final.parsed.model_dump(mode="json"), done.still)
    return ChoiceRound(done.answers, picks, done.record())
