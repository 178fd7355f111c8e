"""Agreement statistics over the experts' digests: computed in code, shown in the report."""

from __future__ import annotations

from collections import Counter
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
    stances = {d["expert"]: stance(str(d.get("signal", ""))) for d in digests}
    counts = Counter(stances.values())
    majority, top = counts.most_common(1)[0] if counts else ("neutral", 0)
    confidences = [float(d.get("confidence", 0.0)) for d in digests]
    return {
        "experts_succeeded": sorted(expert_results),
        "experts_failed": sorted(expert_errors),
        "stances": stances,
        "stance_counts": {k: counts.get(k, 0) for k in ("bullish", "neutral", "bearish")},
        "majority_stance": majority,
        "agreement_ratio": round(top / len(stances), 3) if stances else 0.0,
        "mean_confidence": round(sum(confidences) / len(confidences), 3) if confidences else 0.0,
        "digests": digests,
    }
