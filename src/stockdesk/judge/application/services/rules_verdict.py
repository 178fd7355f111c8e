"""The rules verdict: the experts' code-only signals combined by documented rules, no LLM.

- composite = weighted mean of the signals' scores (valuation, technical, financial weigh 1,
  macro and catalyst 0.5), over the signals that had data (confidence > 0);
- BUY when composite >= 0.25, SELL when <= -0.25, else HOLD;
- support = share of those signals whose stance matches the action (bullish/bearish/neutral);
  strength = min(1, |composite| / 0.5) for BUY/SELL, 1 - |composite| / 0.25 for HOLD;
  confidence = min(0.9, (0.3 + 0.7 x support) x (0.5 + 0.5 x strength)), so it obeys the same
  evidence bound as an LLM verdict.
It is the judge's fallback, the baseline `stockdesk evaluate` compares against, and what
`stockdesk analyze --rules-only` runs.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from stockdesk.judge.application.services.evidence_bound import ACTION_STANCE
from stockdesk.judge.domain.dtos.evidence import CodeSignalInput
from stockdesk.judge.domain.model.enums import ActionDirection
from stockdesk.shared.finance import round_half_up

WEIGHTS = {
    "valuation_modeler": 1.0,
    "technical_analyst": 1.0,
    "financial_auditor": 1.0,
    "macro_intelligence": 0.5,
    "catalyst_detective": 0.5,
}
ACT_AT = 0.25
MAX_CONFIDENCE = 0.9


class RulesDecision(BaseModel):
    action: ActionDirection
    confidence: float = Field(ge=0.0, le=1.0)
    composite: float
    support: float
    signals: dict[str, CodeSignalInput]

    def summary(self) -> str:
        parts = [f"{name} {s.stance} ({s.score:+.2f})" for name, s in self.signals.items()]
        return f"rules: {self.action.value} {self.confidence:.2f}, composite {self.composite:+.2f} from " + (
            ", ".join(parts) or "no signal"
        )


def counted(signals: Mapping[str, CodeSignalInput]) -> dict[str, CodeSignalInput]:
    """The signals that had data (confidence > 0): the only ones the rules and their support count."""
    return {name: s for name, s in signals.items() if s.confidence > 0}


def rules_decision(signals: Mapping[str, CodeSignalInput]) -> RulesDecision:
    counted_signals = counted(signals)
    weight = sum(WEIGHTS.get(name, 0.5) for name in counted_signals)
    composite = (
        sum(WEIGHTS.get(name, 0.5) * s.score for name, s in counted_signals.items()) / weight
        if weight
        else 0.0
    )
    if composite >= ACT_AT:
        action = ActionDirection.BUY
    elif composite <= -ACT_AT:
        action = ActionDirection.SELL
    else:
        action = ActionDirection.HOLD
    stance = ACTION_STANCE[action]
    support = (
        sum(s.stance == stance for s in counted_signals.values()) / len(counted_signals)
        if counted_signals
        else 0.0
    )
    if action is ActionDirection.HOLD:
        strength = 1 - abs(composite) / ACT_AT
    else:
        strength = min(1.0, abs(composite) / 0.5)
    confidence = (
        min(MAX_CONFIDENCE, (0.3 + 0.7 * support) * (0.5 + 0.5 * strength)) if counted_signals else 0.3
    )
    return RulesDecision(
        action=action,
        confidence=int(confidence * 100 + 1e-9) / 100,  # rounded down: the bound still holds
        composite=round_half_up(composite, 3),
        support=round_half_up(support, 4),
        signals=dict(signals),
    )
