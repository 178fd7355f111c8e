"""role_reversal: a bull whose core thesis concludes bearish ("估值过高，存在投资风险"), or a bear
whose thesis concludes bullish. A thesis that turns ("估值偏高，但盈利增长强劲") is an argument,
not a reversal: the check needs a clear verdict for the other side and nothing at all for its own."""

from __future__ import annotations

import re

from stockdesk.shared.claims.scope import Claim
from stockdesk.shared.claims.text_units import core, negated
from stockdesk.shared.claims.violation import Violation
from stockdesk.shared.claims.words import (
    BEAR_CONCLUSION,
    BEAR_VERDICT,
    BULL_CONCLUSION,
    BULL_VERDICT,
    SLOWING_AFTER,
)

THESIS_FIELDS = ("core_thesis", "thesis")
BULL_ROLES = {"bull", "bull_advocate", "bullish"}
BEAR_ROLES = {"bear", "bear_advocate", "bearish"}
# per side: the other side's verdict words, its own conclusion words, its name, the other's stance
SIDES = {
    "bull": (BEAR_VERDICT, BULL_CONCLUSION, "多头", "看空"),
    "bear": (BULL_VERDICT, BEAR_CONCLUSION, "空头", "看多"),
}


def said(pattern: re.Pattern[str], text: str) -> list[str]:
    """The pattern's words in `text` that are neither negated nor slowing ("增长放缓")."""
    return [
        m.group(0)
        for m in pattern.finditer(text)
        if not negated(text[: m.start()]) and not SLOWING_AFTER.match(text, m.end())
    ]


def side_of(role: str | None) -> str | None:
    """ "bull" / "bear" for an advocate's role, None for anyone else (the resolution, the judge)."""
    role = (role or "").lower()
    return "bull" if role in BULL_ROLES else "bear" if role in BEAR_ROLES else None


def role_reversal(field: str, thesis: str, role: str | None) -> list[Violation]:
    """A thesis with the other side's verdict and none of its own conclusion (see the module doc);
    side_contradiction (sides.py) covers the other way of arguing the wrong side: the other
    side's facts given as the reason."""
    if field not in THESIS_FIELDS or not thesis.strip():
        return []
    key = side_of(role)
    if key is None:
        return []
    other_verdict, own_conclusion, side, other_side = SIDES[key]
    other, own = said(other_verdict, thesis), said(own_conclusion, thesis)
    if not other or own:
        return []
    claim = Claim(field, None, core(thesis), thesis)
    detail = (
        f"你是{side}辩手，但核心论点「{core(thesis)}」得出的是{other_side}结论（“{'、'.join(other)}”）："
        f"核心论点必须是{side}理由；对立面的事实写进承认的风险/优势。"
    )
    return [claim.violation("role_reversal", detail, other[0])]
