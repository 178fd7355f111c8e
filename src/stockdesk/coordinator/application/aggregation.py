"""Agreement statistics over the experts' digests: computed in code, shown in the report.

An expert without data (its snapshot held nothing its rules could read: 0 bars, no report, no
search result) is missing, not a voice: it is listed in `experts_without_data` and left out of the
stances, counts and agreement, exactly like an expert that failed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

BULLISH_WORDS = {"BULLISH", "STRONG_BULLISH", "UNDERVALUED", "FAVORABLE", "POSITIVE"}
BEARISH_WORDS = {"BEARISH", "STRONG_BEARISH", "OVERVALUED", "UNFAVORABLE", "NEGATIVE"}


def stance(signal: str) -> str:
    """Each expert speaks its own vocabulary (Undervalued, Favorable, ...); map it to one of three."""
    word = signal.strip().upper()
    if word in BULLISH_WORDS:
        return "bullish"
    if word in BEARISH_WORDS:
        return "bearish"
    return "neutral"


def has_data(result: Mapping[str, Any]) -> bool:
    """Its code signal says whether the snapshot held data (results stored before it: confidence > 0)."""
    code = result.get("code_signal")
    if not isinstance(code, Mapping):
        return True  # nothing tells otherwise: the expert answered
    told = code.get("has_data")
    return bool(told) if told is not None else float(code.get("confidence") or 0.0) > 0


def with_data(expert_results: Mapping[str, Any]) -> list[str]:
    """The experts whose result had data, sorted: the only ones a verdict may rest on."""
    return sorted(n for n, r in expert_results.items() if isinstance(r, Mapping) and has_data(r))


def code_digests(expert_results: dict[str, Any]) -> list[dict[str, Any]]:
    """Rules-only mode: each expert's code-only signal stands where the LLM's signal would."""
    digests = []
    for expert, result in expert_results.items():
        code = result.get("code_signal") or {}
        digests.append(
            {
                "expert": expert,
                "signal": str(code.get("stance", "neutral")),
                "confidence": float(code.get("confidence", 0.0)),
                "key_reasoning": "；".join(code.get("reasons") or []),
                "risk_warnings": [],
                "key_numbers": {"code_score": code.get("score")},
            }
        )
    return digests


def llm_signals(digests: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each expert's own (LLM) stance as a signal the rules can combine: score = +-confidence."""
    signals = {}
    for digest in digests:
        side = stance(str(digest.get("signal", "")))
        confidence = min(1.0, max(0.0, float(digest.get("confidence", 0.0))))
        score = confidence if side == "bullish" else -confidence if side == "bearish" else 0.0
        signals[digest["expert"]] = {
            "stance": side,
            "score": score,
            "confidence": confidence,
            "reasons": [f"LLM: {digest.get('signal')} ({confidence:.2f})"],
        }
    return signals


def aggregate(
    digests: list[dict[str, Any]], expert_results: dict[str, Any], expert_errors: dict[str, str]
) -> dict[str, Any]:
    voiced = with_data(expert_results)
    speaking = [d for d in digests if d["expert"] in voiced]
    stances = {d["expert"]: stance(str(d.get("signal", ""))) for d in speaking}
    counts = Counter(stances.values())
    majority, top = counts.most_common(1)[0] if counts else ("neutral", 0)
    confidences = [float(d.get("confidence", 0.0)) for d in speaking]
    return {
        "experts_succeeded": sorted(expert_results),
        "experts_failed": sorted(expert_errors),
        "experts_with_data": voiced,
        "experts_without_data": sorted(set(expert_results) - set(voiced)),
        "stances": stances,
        "stance_counts": {k: counts.get(k, 0) for k in ("bullish", "neutral", "bearish")},
        "majority_stance": majority,
        "agreement_ratio": round(top / len(stances), 3) if stances else 0.0,
        "mean_confidence": round(sum(confidences) / len(confidences), 3) if confidences else 0.0,
        "digests": digests,
    }
