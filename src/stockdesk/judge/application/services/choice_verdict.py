"""Choices mode: the judge's picks checked against the cards' directions, its texts written by code.

Rules: for BUY every decisive card reads bullish or neutral (direction >= 0) and every risk card
bearish or neutral (<= 0); SELL the mirror image; HOLD any. A wrong pick is re-asked once (by the
service), then dropped and recorded. The reasoning names the action and the decisive cards; each
risk warning is one risk card's text: so the reasoning cannot argue for an action not taken.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stockdesk.judge.domain.dtos.evidence import CardInput
from stockdesk.judge.domain.dtos.verdict_result import VerdictResult
from stockdesk.shared.claims import capitalised, kept_picks, refused_picks

DECISIVE = {"BUY": {1, 0}, "SELL": {-1, 0}, "HOLD": {-1, 0, 1}}
RISKS = {"BUY": {-1, 0}, "SELL": {1, 0}, "HOLD": {-1, 0, 1}}
ACTION_ZH = {"BUY": "买入", "SELL": "卖出", "HOLD": "观望"}
ACTION_EN = {"BUY": "Buy", "SELL": "Sell", "HOLD": "Hold"}


def wrong_picks(picks: Mapping[str, Any], cards: Mapping[str, CardInput]) -> list[str]:
    """Each refused pick as `<field>:<id>：reason`."""
    action = str(picks["action"])
    allowed = {"decisive": DECISIVE[action], "risks": RISKS[action]}
    directions = {card_id: card.direction for card_id, card in cards.items()}
    return refused_picks(picks, allowed, directions, f"与 {action} 不符")


def kept(picks: Mapping[str, Any], wrong: list[str]) -> dict[str, Any]:
    return kept_picks(picks, ["decisive", "risks"], wrong)


def reasoning(action: str, decisive: list[str], cards: Mapping[str, CardInput], lang: str = "zh") -> str:
    texts = [cards[c].text_zh if lang == "zh" else cards[c].text_en for c in decisive if c in cards]
    if lang == "zh":
        return f"{ACTION_ZH[action]}。依据：{'；'.join(texts) if texts else '各研究员立场与辩论结论'}。"
    return f"{ACTION_EN[action]}: on {'; '.join(texts) if texts else 'the experts’ stances and the debate'}."


def risk_lines(risks: list[str], cards: Mapping[str, CardInput], lang: str = "zh") -> list[str]:
    if lang == "zh":
        return [f"{cards[c].text_zh}。" for c in risks if c in cards]
    return [f"{capitalised(cards[c].text_en)}." for c in risks if c in cards]


def verdict_of(picks: Mapping[str, Any], cards: Mapping[str, CardInput]) -> VerdictResult:
    """The verdict the picks make, its texts written from the cards."""
    action = str(picks["action"])
    return VerdictResult(
        action=action,
        plan=picks.get("plan", "standard"),
        confidence=float(picks["confidence"]),
        time_horizon=picks["time_horizon"],
        risk_warnings=risk_lines(list(picks.get("risks") or []), cards),
        reasoning=reasoning(action, list(picks.get("decisive") or []), cards),
    )


def english(picks: Mapping[str, Any], cards: Mapping[str, CardInput]) -> dict[str, Any]:
    action = str(picks["action"])
    return {
        "reasoning": reasoning(action, list(picks.get("decisive") or []), cards, "en"),
        "risk_warnings": risk_lines(list(picks.get("risks") or []), cards, "en"),
    }
