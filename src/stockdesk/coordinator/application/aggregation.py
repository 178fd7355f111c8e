"""Agreement statistics over the experts' views: computed in code, shown in the report.

Every expert's result reaches the coordinator as research's ExpertView (its stance in the desk's
three words, its confidence, whether it had data, its code signal and its evidence cards). An
expert without data (its snapshot held nothing its rules could read: 0 bars, no report, no search
result) is missing, not a voice: it is listed in `experts_without_data` and left out of the
stances, counts and agreement, exactly like an expert that failed.

The aggregation stores the views under the key `digests` (the name sessions stored before the
views used), so a session's record reads the same whoever wrote it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from stockdesk.research.application import CodeSignal, ExpertView, InvalidExpertResult, expert_views


def with_data(views: Sequence[ExpertView]) -> list[str]:
    """The experts whose snapshot had data, sorted: the only ones a verdict may rest on."""
    return sorted(v.expert for v in views if v.has_data)


def llm_signals(views: Sequence[ExpertView]) -> dict[str, CodeSignal]:
    """Each expert's own (LLM) stance as a signal the rules can combine: score = +-confidence."""
    signals = {}
    for view in views:
        score = (
            view.confidence
            if view.stance == "bullish"
            else -view.confidence
            if view.stance == "bearish"
            else 0.0
        )
        signals[view.expert] = CodeSignal(
            expert=view.expert,
            stance=view.stance,
            score=score,
            confidence=view.confidence,
            reasons=[f"LLM: {view.signal or view.stance} ({view.confidence:.2f})"],
            has_data=view.has_data,
        )
    return signals


def aggregate(
    views: Sequence[ExpertView], expert_results: Mapping[str, Any], expert_errors: Mapping[str, str]
) -> dict[str, Any]:
    voiced = with_data(views)
    speaking = [v for v in views if v.expert in voiced]
    stances = {v.expert: v.stance for v in speaking}
    counts = Counter(stances.values())
    majority, top = counts.most_common(1)[0] if counts else ("neutral", 0)
    confidences = [v.confidence for v in speaking]
    return {
        "experts_succeeded": sorted(expert_results),
        "experts_failed": sorted(expert_errors),
        "experts_with_data": voiced,
        "experts_without_data": sorted({v.expert for v in views} - set(voiced)),
        "stances": stances,
        "stance_counts": {k: counts.get(k, 0) for k in ("bullish", "neutral", "bearish")},
        "majority_stance": majority,
        "agreement_ratio": round(top / len(stances), 3) if stances else 0.0,
        "mean_confidence": round(sum(confidences) / len(confidences), 3) if confidences else 0.0,
        "digests": [v.model_dump(mode="json") for v in views],
    }


def stored_views(
    aggregation: Mapping[str, Any] | None, expert_results: Mapping[str, Any]
) -> list[ExpertView]:
    """A stored session's views: as stored; a session stored before the views has them rebuilt by
    research from its stored results (an unreadable result is left out)."""
    stored = (aggregation or {}).get("digests") or []
    try:
        return [ExpertView.model_validate(d) for d in stored]
    except ValidationError:
        pass
    views = []
    for name, result in expert_results.items():
        try:
            views += expert_views({name: result})
        except InvalidExpertResult:
            continue
    return views
