"""No evidence, no verdict: a verdict resting on fewer than two experts with data is `insufficient`.

An expert with data is one whose snapshot held something to read (its code signal's `has_data`:
bars, a report, a found article); one without (0 bars before the listing, a date past the store)
is missing, exactly like a failed expert. With fewer than MIN_EXPERTS_WITH_DATA of them the judge
answers without asking the model (no tokens spent): action HOLD, confidence 0 (not a
probability: there is nothing to be confident about), no position and no trade plan, and says
"证据不足 (insufficient evidence)" in words. The rules path counts the signals its composite
rests on (confidence > 0), the LLM path the experts the coordinator found with data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stockdesk.judge.application.dtos.verdict_dto import VerdictDTO
from stockdesk.judge.application.services.verdict_words import insufficient_in
from stockdesk.shared.wording import both

MIN_EXPERTS_WITH_DATA = 2
NO_PLAN = "证据不足，不给交易计划"


def is_sufficient(experts: Sequence[str] | None) -> bool:
    """None: the caller named no experts (a bare debate outcome), so there is nothing to count."""
    return experts is None or len(experts) >= MIN_EXPERTS_WITH_DATA


def signals_with_data(code_signals: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The code signals (dumped) a rules verdict rests on: with data and a lean (confidence > 0)."""
    return sorted(
        name
        for name, signal in code_signals.items()
        if signal.get("has_data") is not False and float(signal.get("confidence") or 0.0) > 0
    )


def insufficient_reason(experts: Sequence[str]) -> str:
    named = f"（{', '.join(experts)}）" if experts else ""
    return (
        f"证据不足 (insufficient evidence)：仅 {len(experts)} 位专家有数据{named}，"
        f"至少需要 {MIN_EXPERTS_WITH_DATA} 位；不给方向、置信度与交易计划。"
    )


def insufficient_verdict(symbol: str, experts: Sequence[str], source: str) -> VerdictDTO:
    """HOLD at confidence 0 with no plan: what a verdict without enough evidence says."""
    reason = insufficient_reason(experts)
    return VerdictDTO(
        symbol=symbol,
        action="HOLD",
        position_percent=0.0,
        confidence=0.0,
        entry_strategy=NO_PLAN,
        stop_loss=NO_PLAN,
        take_profit=NO_PLAN,
        time_horizon="—",
        risk_warnings=[],
        reasoning=reason,
        source=source,
        trade_plan=None,
        evidence="insufficient",
        evidence_reason=reason,
        experts_with_data=list(experts),
        i18n=both(lambda lang: insufficient_in(experts, MIN_EXPERTS_WITH_DATA, lang)),
    )
