"""action_contradiction: a judge's text that argues for another action than the one it chose.

Why: the action and the plan come from the structured answer, the reasoning is free prose, and a
small model writes them separately. The recorded HOLD (position 0%) reasoned "多头论点支持买入操作
… 保守方案的止盈和仓位减半是合理的": a reader of the reasoning would buy. Flagged, per sentence:

- advocacy of another action: "支持/建议/应当/值得 … 买入/建仓/加仓" (or "… 卖出/减仓/离场", or the
  English "recommend buying", "should sell") when the chosen action is not that one;
- at HOLD (no position): a position called reasonable ("仓位减半是合理的", "轻仓是可取的").

Not flagged: a negated advocacy ("不支持买入", "不建议加仓"; "暂不买入" is no advocacy at all), a
conceded one ("虽然多头支持买入，…"), a conditional one ("若跌破 95.5 则应离场": the plan's own
exit) and one the sentence answers with the chosen action ("多头论点支持买入，但分歧较大，观望").
Only whole phrases count, never a bare "买入".
"""

from __future__ import annotations

import re

from stockdesk.shared.claims.scope import Claim
from stockdesk.shared.claims.text_units import negated, sentences
from stockdesk.shared.claims.violation import Violation

_ADVISE = r"(?:支持|建议|应当|应该|理应|应|宜|值得|可以|适合|推荐|主张|倾向于?)\s*"
_MANNER = r"(?:积极|逢低|适当|择机|分批|尽快|立即|继续)?\s*"
_EN_ADVISE = r"\b(?:recommends?|recommended|recommending|supports?|should|favou?rs?|justif(?:y|ies))\s+"
ADVOCACY = {
    "BUY": re.compile(
        rf"{_ADVISE}{_MANNER}(?:买入|建仓|加仓|增持|做多|入场|介入)"
        rf"|{_EN_ADVISE}(?:a\s+|the\s+)?(?:buy(?:ing)?|long|accumulat\w*)\b|\bbuy\s+(?:rating|signal)\b",
        re.IGNORECASE,
    ),
    "SELL": re.compile(
        rf"{_ADVISE}{_MANNER}(?:卖出|减仓|减持|清仓|离场|做空|出局)"
        rf"|{_EN_ADVISE}(?:a\s+|the\s+)?(?:sell(?:ing)?|short(?:ing)?|exit(?:ing)?)\b|\bsell\s+(?:rating|signal)\b",
        re.IGNORECASE,
    ),
}
# words that say the chosen action itself: said after an advocacy, they answer it ("持有" is not
# HOLD's: "买入并持有" buys)
OWN_ACTION = {
    "BUY": re.compile(r"买入|建仓|参与|看多|\bbuy", re.IGNORECASE),
    "SELL": re.compile(r"卖出|减仓|离场|回避|看空|\bsell", re.IGNORECASE),
    "HOLD": re.compile(r"观望|等待|暂不|不入场|按兵不动|\b(?:hold|wait)", re.IGNORECASE),
}
ACTION_NAMES = {"BUY": "买入", "SELL": "卖出", "HOLD": "观望、不建仓"}
_CONCESSION = re.compile(
    r"虽然|尽管|虽|即使|即便|若|如果|假如|倘若|一旦|跌破|突破|触及|\b(?:although|though|despite|while|if)\b",
    re.IGNORECASE,
)
# HOLD holds nothing: a position called sound is a position taken ("控制仓位" / "空仓" are not)
_POSITION = re.compile(r"仓位|建仓|加仓|轻仓|半仓|重仓|满仓")
_NO_POSITION_BEFORE = re.compile(r"(?:控制|降低|压缩|减|零|空|不|无|0\s*%?)\s*$")
_SOUND = re.compile(r"合理|恰当|适当|可取|可行|妥当|稳妥|明智|合适")


def _answered(sentence: str, start: int, end: int, action: str) -> bool:
    """Is the advocacy at [start, end) conceded or conditional, or answered by `action` after it?"""
    if _CONCESSION.search(sentence[:start]):
        return True
    return any(not negated(sentence[: m.start()]) for m in OWN_ACTION[action].finditer(sentence, end))


def _advocacies(sentence: str, action: str) -> list[tuple[str, str]]:
    """(phrase, the action it argues for) of every unanswered advocacy of another action."""
    found = []
    for other, pattern in ADVOCACY.items():
        if other == action:
            continue
        for match in pattern.finditer(sentence):
            if negated(sentence[: match.start()]) or _answered(sentence, match.start(), match.end(), action):
                continue
            found.append((match.group(0).strip(), other))
    return found


def _sound_position(sentence: str) -> str | None:
    """The position phrase a sentence calls reasonable ("仓位减半是合理的"), if it does."""
    for position in _POSITION.finditer(sentence):
        if _NO_POSITION_BEFORE.search(sentence[: position.start()]) or negated(sentence[: position.start()]):
            continue
        sound = _SOUND.search(sentence, position.end())
        if sound and not negated(sentence[: sound.start()]):
            return sentence[position.start() : sound.end()]
    return None


def action_contradiction(field: str, item: int | None, text: str, action: str | None) -> list[Violation]:
    """Sentences of `text` arguing for another action than `action` (BUY / SELL / HOLD)."""
    action = (action or "").upper()
    if action not in OWN_ACTION:
        return []
    chosen = ACTION_NAMES[action]
    found = []
    for sentence in sentences(text):
        claim = Claim(field, item, sentence, sentence)
        advocated = _advocacies(sentence, action)
        if advocated:
            phrase, other = advocated[0]
            detail = (
                f"你选择的操作是 {action}（{chosen}），但「{sentence}」用“{phrase}”论证的是"
                f" {other}（{ACTION_NAMES[other]}）：理由必须支持你选择的操作；"
                "对立观点只能作为被权衡后放弃的一方写出。"
            )
            found.append(claim.violation("action_contradiction", detail, phrase))
            continue
        position = _sound_position(sentence) if action == "HOLD" else None
        if position:
            detail = (
                f"你选择的操作是 HOLD，仓位为 0%，但「{sentence}」称“{position}”：观望不建仓，"
                "不要评价或推荐任何方案的仓位。"
            )
            found.append(claim.violation("action_contradiction", detail, position))
    return found
