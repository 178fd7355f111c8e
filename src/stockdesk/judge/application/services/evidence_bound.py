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

from stockdesk.judge.domain.model.enums import ActionDirection, DebateDirection

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

    def words(self) -> str:
        return f"{self.agreeing} of {self.voices} voices {self.stance}"


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
    stance = ACTION_STANCE[action]
    counts = Counter(str(s).lower() for s in stances.values())
    if not counts or debate is None:
        return None
    leading = max(counts.values())
    if counts.get(stance, 0) >= leading or DEBATE_STANCE[debate] == stance:
        return None
    majority = "/".join(sorted(s for s, n in counts.items() if n == leading))
    return (
        f"{action.value} is {stance}, but the experts lean {majority} "
        f"({counts.get(stance, 0)} of {sum(counts.values())} {stance}) and the debate concluded "
        f"{DEBATE_STANCE[debate]}"
    )
