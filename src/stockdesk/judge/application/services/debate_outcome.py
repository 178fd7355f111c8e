"""DebateOutcome (a plain dict, as Debate and the Coordinator hand it over) -> JudgeInput.

Judge imports no Debate type, so either side can change its models without breaking the other
(judge-design.md, Decision 3); this is the one place the outcome's shape is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from stockdesk.judge.domain.dtos.judge_input import JudgeInput
from stockdesk.judge.domain.exceptions import InvalidDebateOutcomeError


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _texts(values: Any) -> list[str]:
    return [v.strip() for v in values if isinstance(v, str) and v.strip()] if isinstance(values, list) else []


def judge_input_from_outcome(symbol: str, outcome: Mapping[str, Any]) -> JudgeInput:
    if not outcome:
        raise InvalidDebateOutcomeError("debate_outcome is empty: there is nothing to judge")
    bull = outcome.get("bull_case") or {}
    bear = outcome.get("bear_case") or {}
    risks = [_text(r.get("risk")) for r in outcome.get("risk_matrix") or [] if isinstance(r, Mapping)]
    try:
        return JudgeInput(
            symbol=symbol,
            direction=outcome.get("direction"),  # type: ignore[arg-type]
            confidence=outcome.get("confidence"),  # type: ignore[arg-type]
            bull_thesis=_text(bull.get("core_thesis")) if isinstance(bull, Mapping) else "",
            bear_thesis=_text(bear.get("core_thesis")) if isinstance(bear, Mapping) else "",
            risk_factors=[r for r in risks if r],
            key_disagreements=_texts(outcome.get("key_disagreements")),
            conflict_resolution=_text(outcome.get("conflict_resolution")),
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise InvalidDebateOutcomeError(f"debate_outcome.{field}: {first['msg']}") from exc
