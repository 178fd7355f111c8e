"""side_contradiction: an advocate that argues from the other side's facts.

Why: role_reversal (roles.py) catches a thesis that concludes for the other side; a small model
also keeps its own conclusion and gives the other side's facts as the reason for it. The recorded
bull case: "被评估为被高估，但其盈利能力在增长，且财务状况堪忧，因此仍被看多". Checked in the
advocate's own case (core thesis, supporting arguments), never in what it concedes (acknowledged
risks / strengths):

- a reason clause with the other side's fact, drawn to the own conclusion: "…堪忧，因此仍被看多",
  "由于亏损扩大，看好后市";
- a supporting argument that is nothing but the other side's fact ("财务状况堪忧" for a bull);
- a quote of an evidence card that code signed for the other side (a bull quoting a -1 card,
  "PE 历史分位 85" / "营收同比 -13.74%"; a bear quoting a +1 card).

An argument that concedes and turns ("估值偏高，但盈利增长强劲"), negates ("并未恶化"), or says the
fact is contained ("亏损收窄", "风险可控") is the advocate's own argument and is not flagged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from stockdesk.shared.claims.cards import Card, quotes
from stockdesk.shared.claims.roles import SIDES, THESIS_FIELDS, said, side_of
from stockdesk.shared.claims.scope import Claim, field_items
from stockdesk.shared.claims.text_units import clauses, sentences, without_link
from stockdesk.shared.claims.violation import Violation

ARGUMENT_FIELDS = (*THESIS_FIELDS, "supporting_arguments")
# subjects that are good when they rise: their fall is a bear's fact, their rise a bull's
_GOOD_UP = (
    r"营(?:业)?收(?:入)?|收入|利润|净利|盈利|业绩|毛利|ROE|净资产收益率|现金流|销量|需求|订单|份额|EPS|每股收益"
    r"|\b(?:revenue|profit|earnings|sales|margin)s?\b"
)
_FALL = r"下滑|下降|减少|萎缩|负增长|为负|\b(?:fell|falling|declin\w*|shrank|shrinking)\b"
_GAP = r"[^，,。；;不未没无非]{0,6}?"  # between the subject and its verb: no clause break, no negation
_RISE = r"增长|提升|上升|改善|回升|增加|\b(?:grew|growing|grows|rising|rose|improv\w*)\b"
FACTS = {  # the facts each side argues from
    "bear": re.compile(
        r"堪忧|恶化|被高估|高估|估值过高|估值偏高|估值较高|估值高企|亏损(?!收窄|减少|缩小|减小)|风险较大|风险很大|风险极大|风险大|"
        r"不佳|欠佳|疲弱|疲软|低迷|转差|变差|超买|"
        rf"(?:{_GOOD_UP}){_GAP}(?:{_FALL})"
        r"|\b(?:deteriorat\w*|overvalued|loss-making|weak|poor)\b",
        re.IGNORECASE,
    ),
    "bull": re.compile(
        r"被低估|低估|估值偏低|估值较低|强劲|优秀|亮眼|出色|优异|超卖|充沛|充裕|良好|向好|好转|"
        rf"(?:{_GOOD_UP}){_GAP}(?:{_RISE})(?!\s*-\d)"
        r"|\b(?:undervalued|strong|robust|excellent|oversold)\b",
        re.IGNORECASE,
    ),
}
OTHER = {"bull": "bear", "bear": "bull"}
# per side: its name, the other side's stance, the direction of the other side's cards
SIDE_NAMES = {"bull": ("多头", "看空", -1), "bear": ("空头", "看多", 1)}
_CAUSAL = re.compile(
    r"因此|所以|故而|因而|从而|于是|由此可见|综上所述|综上|\b(?:therefore|thus|hence|so)\b", re.IGNORECASE
)
_BECAUSE = re.compile(r"^(?:由于|因为|鉴于|基于|得益于|受益于|\b(?:because|since|given)\b)", re.IGNORECASE)
_TURN = re.compile(
    r"但|然而|不过|虽然|尽管|虽|即使|即便|却|\b(?:but|however|although|though|despite|while)\b", re.IGNORECASE
)
# the fact is said to be contained, priced in or passing: the advocate's argument, not the other's
_CONTAINED = re.compile(
    r"有限|可控|已消化|消化|已反映|反映|定价|缓解|收窄|见底|企稳|触底|边际改善|不可持续|难以持续|见顶|"
    r"\b(?:limited|contained|priced in)\b",
    re.IGNORECASE,
)


def other_facts(text: str, key: str) -> list[str]:
    """The other side's facts said in `text` (not negated, not slowing)."""
    return said(FACTS[OTHER[key]], text)


def _reason(sentence: str, key: str) -> str | None:
    """The other side's fact given as the reason for the own conclusion, if the sentence does so."""
    own = SIDES[key][1]
    for causal in _CAUSAL.finditer(sentence):
        premise = [c for c in clauses(sentence[: causal.start()]) if c]
        rest = sentence[causal.end() :]
        conclusion = _TURN.split(rest, maxsplit=1)[0]
        if premise and said(own, conclusion) and not _TURN.match(premise[-1]):
            facts = other_facts(without_link(premise[-1]), key)
            if facts and not _CONTAINED.search(premise[-1]):
                return facts[0]
    parts = clauses(sentence)
    for index, part in enumerate(parts):
        facts = other_facts(part, key) if _BECAUSE.match(part) else []
        after = _TURN.split("，".join(parts[index + 1 :]), maxsplit=1)[0]
        if facts and not _CONTAINED.search(part) and said(own, after):
            return facts[0]
    return None


def _only_other_facts(text: str, key: str, field: str) -> str | None:
    """An argument that is the other side's fact alone: no turn, no containment, nothing of its own.
    A thesis with the other side's verdict is role_reversal's to flag."""
    if _TURN.search(text) or _CONTAINED.search(text):
        return None
    other_verdict, own_conclusion = SIDES[key][0], SIDES[key][1]
    if field in THESIS_FIELDS and said(other_verdict, text):
        return None
    facts = other_facts(text, key)
    if not facts or said(FACTS[key], text) or said(own_conclusion, text):
        return None
    return facts[0]


def _other_card(sentence: str, key: str, cards: list[Card]) -> Card | None:
    """A card signed for the other side that the sentence quotes without conceding it."""
    if _TURN.search(sentence) or _CONTAINED.search(sentence):
        return None
    direction = SIDE_NAMES[key][2]
    return next((c for c in cards if c.direction == direction and quotes(c, sentence)), None)


def _violation(claim: Claim, key: str, why: str, term: str) -> Violation:
    side, other_stance, _ = SIDE_NAMES[key]
    detail = (
        f"你是{side}辩手，但「{claim.sentence}」{why}：论据必须是{side}的理由；"
        f"{other_stance}的事实只能写进承认的风险/优势，或先承认再用“但……”转回{side}论据。"
    )
    return claim.violation("side_contradiction", detail, term)


def _sentence_violation(
    field: str, item: int | None, sentence: str, key: str, cards: list[Card]
) -> Violation | None:
    claim = Claim(field, item, sentence, sentence)
    reason = _reason(sentence, key)
    if reason:
        return _violation(claim, key, f"把“{reason}”当作理由", reason)
    card = _other_card(sentence, key, cards)
    if card:
        why = f"引用了代码判为{SIDE_NAMES[key][1]}的证据“{card.text or card.id}”作为论据"
        return _violation(claim, key, why, card.id)
    return None


def side_contradiction(
    field: str, value: str | Sequence[str], role: str | None, cards: list[Card]
) -> list[Violation]:
    """Violations of an advocate (`role` bull / bear) arguing from the other side's facts or cards."""
    key = side_of(role)
    if key is None or field not in ARGUMENT_FIELDS:
        return []
    found: list[Violation] = []
    for item, text in field_items(value):
        units = sentences(text)
        flagged = [v for s in units if (v := _sentence_violation(field, item, s, key, cards))]
        if not flagged and units and (fact := _only_other_facts(text, key, field)):
            claim = Claim(field, item, units[-1] if len(units) == 1 else text.strip(), text)
            flagged = [_violation(claim, key, f"只陈述了对立面的事实“{fact}”", fact)]
        found += flagged
    return found
