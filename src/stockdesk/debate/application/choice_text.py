"""Choices mode's sentences: code words the cases and the conclusion from the cards picked.

Every sentence is a template over card texts (which code wrote from the snapshot's numbers), so no
sentence can contradict its numbers, stop mid-way or repeat itself; each is written in Chinese
(the outcome's fields, as the prose mode fills them) and in English (`english`).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from stockdesk.debate.domain.dtos.outcome import BearCase, BullCase
from stockdesk.research.application import EvidenceCard
from stockdesk.shared.claims import capitalised

DIRECTION_ZH = {"BULLISH": "看多", "BEARISH": "看空", "NEUTRAL": "中性"}
DIRECTION_EN = {"BULLISH": "bullish", "BEARISH": "bearish", "NEUTRAL": "neutral"}
NO_CARD_ZH = "没有方向相符的证据卡"
NO_CARD_EN = "no evidence card points this way"


class Rendered(BaseModel):
    """One side's case or the conclusion, in one language."""

    thesis: str
    arguments: list[str] = []
    conceded: list[str] = []


def _texts(ids: list[str], cards: Mapping[str, EvidenceCard], lang: str) -> list[str]:
    return [cards[i].text_zh if lang == "zh" else cards[i].text_en for i in ids if i in cards]


def _sentence(head: str, items: list[str], lang: str, empty: str) -> str:
    if lang == "zh":
        return f"{head}：{'；'.join(items) if items else empty}。"
    return f"{head}: {'; '.join(items) if items else empty}."


def _full_stop(text: str, lang: str) -> str:
    return f"{text}。" if lang == "zh" else f"{capitalised(text)}."


def render_case(
    side: str, picks: Mapping[str, list[str]], cards: Mapping[str, EvidenceCard], lang: str
) -> Rendered:
    """A bull's or bear's case: the thesis names the supporting cards, ranked as picked."""
    support = _texts(picks.get("support", []), cards, lang)
    conceded = _texts(picks.get("concede", []), cards, lang)
    zh_head = {"bull": "看多论点", "bear": "看空论点"}[side]
    en_head = {"bull": "The bull case", "bear": "The bear case"}[side]
    head, empty = (zh_head, NO_CARD_ZH) if lang == "zh" else (en_head, NO_CARD_EN)
    return Rendered(
        thesis=_sentence(head, support, lang, empty),
        arguments=[_full_stop(t, lang) for t in support],
        conceded=[_full_stop(t, lang) for t in conceded],
    )


def bull_case(picks: Mapping[str, list[str]], cards: Mapping[str, EvidenceCard]) -> BullCase:
    zh = render_case("bull", picks, cards, "zh")
    return BullCase(core_thesis=zh.thesis, supporting_arguments=zh.arguments, acknowledged_risks=zh.conceded)


def bear_case(picks: Mapping[str, list[str]], cards: Mapping[str, EvidenceCard]) -> BearCase:
    zh = render_case("bear", picks, cards, "zh")
    return BearCase(
        core_thesis=zh.thesis, supporting_arguments=zh.arguments, acknowledged_strengths=zh.conceded
    )


def cases_text(bull: BullCase, bear: BearCase) -> str:
    """Both cases as the resolution's prompt shows them."""
    lines = [
        f"- 多头：{bull.core_thesis}",
        f"- 多头承认的风险：{'；'.join(bull.acknowledged_risks) or '（无）'}",
    ]
    lines += [
        f"- 空头：{bear.core_thesis}",
        f"- 空头承认的优势：{'；'.join(bear.acknowledged_strengths) or '（无）'}",
    ]
    return "\n".join(lines)


def disagreement(pair: list[str], cards: Mapping[str, EvidenceCard], lang: str) -> str:
    """A bullish and a bearish card side by side, the bullish one first."""
    first, second = sorted((cards[c] for c in pair), key=lambda c: -c.direction)
    if lang == "zh":
        gap = " " if second.text_zh[:1].isascii() else ""  # "而 MACD 柱为负", "而营收同比"
        return f"{first.text_zh}，而{gap}{second.text_zh}。"
    return f"{capitalised(first.text_en)}, while {second.text_en}."


def conclusion(direction: str, decisive: list[str], cards: Mapping[str, EvidenceCard], lang: str) -> str:
    texts = _texts(decisive, cards, lang)
    if lang == "zh":
        return _sentence(f"结论{DIRECTION_ZH[direction]}，决定性证据", texts, lang, NO_CARD_ZH)
    return _sentence(f"Conclusion {DIRECTION_EN[direction]}; decisive evidence", texts, lang, NO_CARD_EN)


def strongest(cards: Mapping[str, EvidenceCard], directions: set[int], n: int = 3) -> list[str]:
    """The ids of the `n` strongest cards whose direction is in `directions`: code's own pick,
    for a prose answer whose text had to go (its choices-mode rendering, never a placeholder)."""
    ranked = sorted((c for c in cards.values() if c.direction in directions), key=lambda c: -c.strength)
    return [c.id for c in ranked[:n]]
