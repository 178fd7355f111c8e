"""Confidence bound to the evidence: the share of voices that point the verdict's way.

Voices: each succeeded expert's stance and the debate's direction (BUY ~ bullish, SELL ~ bearish,
HOLD ~ neutral). A verdict's confidence never exceeds 0.3 + 0.7 x support. An action is against
the evidence when fewer experts share its stance than share the leading stance AND the debate
points elsewhere: such a verdict is re-asked once, then replaced by the rules verdict.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from pydantic import BaseModel

from stockdesk.judge.application.services.verdict_words import named
from stockdesk.judge.domain.model.enums import ActionDirection, DebateDirection
from stockdesk.shared.wording import LANGUAGES, say

ACTION_STANCE = {
    ActionDirection.BUY: "bullish",
    ActionDirection.SELL: "bearish",
    ActionDirection.HOLD: "neutral",
}
DEBATE_STANCE = {
    DebateDirection.BULLISH: "bullish",
    DebateDirection.BEARISH: "bearish",
    DebateDirection.NEUTRAL: "neutral",
}
STANCE_WORDS = {"bullish": "看多", "neutral": "中性", "bearish": "看空"}  # how prompts and reasons say it
FLOOR, SLOPE = 0.3, 0.7


class Support(BaseModel):
    stance: str
    agreeing: int
    voices: int
    share: float
    cap: float

    def words(self, lang: str = "en") -> str:
        stance = named("stance.", self.stance, lang)
        return say("verdict.support", lang, agreeing=self.agreeing, voices=self.voices, stance=stance)


def support_for(
    action: ActionDirection, stances: Mapping[str, str], debate: DebateDirection | None
) -> Support:
    stance = ACTION_STANCE[action]
    voices = [str(s).lower() for s in stances.values()]
    if debate is not None:
        voices.append(DEBATE_STANCE[debate])
    agreeing = sum(v == stance for v in voices)
    share = agreeing / len(voices) if voices else 0.0
    return Support(
        stance=stance, agreeing=agreeing, voices=len(voices), share=round(share, 4), cap=confidence_cap(share)
    )


def confidence_cap(share: float) -> float:
    """Floor to keep: 0.3 + 0.7 x share, rounded down to 0.01 so the bound holds after rounding."""
    return int((FLOOR + SLOPE * share) * 100 + 1e-9) / 100


def against_evidence(
    action: ActionDirection, stances: Mapping[str, str], debate: DebateDirection | None
) -> str | None:
    """Why the action goes against both the expert majority and the debate, or None."""
    reason = against_reason(action, stances, debate)
    return reason["en"] if reason is not None else None


def against_reason(
    action: ActionDirection, stances: Mapping[str, str], debate: DebateDirection | None
) -> dict[str, str] | None:
    """`against_evidence`'s reason in every language (language -> text), or None."""
    stance = ACTION_STANCE[action]
    counts = Counter(str(s).lower() for s in stances.values())
    if not counts or debate is None:
        return None
    leading = max(counts.values())
    if counts.get(stance, 0) >= leading or DEBATE_STANCE[debate] == stance:
        return None
    majority = sorted(s for s, n in counts.items() if n == leading)
    return {
        lang: say(
            "verdict.against",
            lang,
            action=named("action.", action.value, lang),
            stance=named("stance.", stance, lang),
            majority="/".join(named("stance.", s, lang) for s in majority),
            n=counts.get(stance, 0),
            total=sum(counts.values()),
            debate=named("stance.", DEBATE_STANCE[debate], lang),
        )
        for lang in LANGUAGES
    }
