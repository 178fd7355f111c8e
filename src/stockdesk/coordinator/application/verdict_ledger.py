"""Where a finished session's verdict is recorded: the verdict ledger, through its application; a
saved session becomes one VerdictRecord.

What the record holds, from the session:
- mode: `rules` (rules-only), `experts` (LLM experts combined by the rules) or `full`;
- model: `rules` for a code-only verdict, else the LLM routes the session ran with (`llm_settings`);
- probability_up: the verdict's own `probability_up` when it carries one, else None (uncalibrated);
- cost_usd: 0 without LLM calls, else the run's cost by the aliases' prices (None: unpriced);
- experts: each expert's stance and confidence from the aggregation's digests;
- inputs hash: the experts' snapshots (their `*_indicators`), the sha256 of each expert's prompt
  (`input`), the model and the seed.
The entry's as_of is the session's; a session run without one (latest data) takes the date its
trade plan is priced at (the last bar), else the day it started.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from stockdesk.coordinator.domain.dtos.session import ResearchSession
from stockdesk.ledger.application import (
    ExpertVoiceRecord,
    LedgerService,
    VerdictRecord,
    inputs_hash,
    prompt_hash,
)


def session_mode(settings: dict[str, Any]) -> str:
    if settings.get("rules_only"):
        return "rules"
    return "experts" if settings.get("verdict_by_rules") else "full"


def session_model(settings: dict[str, Any]) -> str:
    if settings.get("rules_only"):
        return "rules"
    return ",".join(str(m) for m in settings.get("models") or []) or "unknown"


def _as_of(session: ResearchSession) -> date:
    if session.as_of is not None:
        return session.as_of
    reference = ((session.verdict or {}).get("trade_plan") or {}).get("reference_date")
    return date.fromisoformat(reference) if reference else session.started_at.date()


def _experts(aggregation: dict[str, Any]) -> dict[str, ExpertVoiceRecord]:
    stances = aggregation.get("stances") or {}
    return {
        d["expert"]: ExpertVoiceRecord(
            stance=str(stances.get(d["expert"], "neutral")), confidence=float(d.get("confidence") or 0.0)
        )
        for d in aggregation.get("digests") or []
        if d.get("expert")
    }


def _probability(verdict: dict[str, Any]) -> float | None:
    """The verdict's calibrated P(up) at its own horizon (the signal model's verdict horizon);
    None when the verdict is uncalibrated. A bare number (older verdicts) is taken as is."""
    value = verdict.get("probability_up")
    if isinstance(value, dict):
        if not verdict.get("calibrated"):
            return None
        horizon = str((verdict.get("signal_model") or {}).get("horizon", VERDICT_HORIZON))
        value = value.get(horizon)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


VERDICT_HORIZON = 20


def verdict_record(session: ResearchSession, cost_usd: float | None = None) -> VerdictRecord:
    """The ledger record of a session that has a verdict; `cost_usd`: what its LLM calls cost (0 for
    a session without one, None when the aliases are not priced)."""
    settings = session.llm_settings or {}
    model = session_model(settings)
    results = session.expert_results or {}
    snapshots = {
        name: {k: v for k, v in result.items() if k.endswith("_indicators")}
        for name, result in results.items()
    }
    prompts = {
        name: prompt_hash(r["input"]) for name, r in results.items() if isinstance(r.get("input"), str)
    }
    verdict = session.verdict
    return VerdictRecord(
        entry_id=session.id,
        symbol=session.symbol,
        as_of=_as_of(session),
        mode=session_mode(settings),
        model=model,
        action=str(verdict["action"]).upper(),
        confidence=float(verdict.get("confidence") or 0.0),
        position_percent=float(verdict.get("position_percent") or 0.0),
        probability_up=_probability(verdict),
        session_id=session.id,
        verdict=verdict,
        experts=_experts(session.aggregation or {}),
        inputs_hash=inputs_hash(snapshots, prompts, model, settings.get("seed")),
        tokens=session.tokens,
        llm_calls=session.llm_calls,
        cost_usd=0.0 if session.llm_calls == 0 else cost_usd,
    )


class VerdictLedger:
    def __init__(
        self, service: Callable[[], LedgerService], cost_of: Callable[[str], float | None] | None = None
    ):
        """`cost_of(run id)`: USD of the run's LLM calls (None: not priced); asked only when the
        session made calls, so a rules-only session never builds the LLM service."""
        self._service = service
        self._cost_of = cost_of

    def record(self, session: ResearchSession) -> None:
        """Append the session's verdict once (the session id names the entry: a second call for
        the same session appends nothing)."""
        cost = self._cost_of(session.id) if self._cost_of is not None and session.llm_calls else None
        self._service().append(verdict_record(session, cost))
