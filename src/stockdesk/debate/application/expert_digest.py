"""Research results (plain dicts, as research's DTOs dump them) -> one short ExpertDigest per expert.

Debate imports no research type: this is the one place their field names are read. A result may
be a full research DTO dump or an already-reduced dict with ExpertDigest's own fields. The few
numbers kept per expert are the ones a bull or bear would argue from; every one is copied from
the expert's snapshot, so an advocate can quote it and the quote can be checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from stockdesk.debate.domain.dtos.expert_digest import ExpertDigest
from stockdesk.debate.domain.exceptions import InvalidExpertResultsError

REASONING_CHARS = 150  # the experts write at most 150 now
RISK_CHARS = 60
MAX_RISKS = 2

SIGNAL_FIELDS = ("signal", "valuation_verdict", "macro_environment", "catalyst_assessment")
CONFIDENCE_FIELDS = ("confidence", "confidence_score")
REASONING_FIELDS = (
    "key_reasoning",
    "summary_reasoning",
    "reasoning_summary",
    "macro_summary",
    "catalyst_summary",
)
RISK_FIELDS = ("risk_warnings", "risk_warning", "risk_factors", "key_risks", "negative_catalysts")

# ValuationSnapshotDTO / TechnicalSnapshotDTO keys (research.domain.dtos.valuation / .technical)
VALUATION_KEYS = (
    "current_price",
    "pe_ttm",
    "pe_percentile",
    "pb_percentile",
    "peg_ratio",
    "graham_safety_margin",
    "roe",
    "growth_rate_avg",
)
TECHNICAL_KEYS = (
    "close",
    "change_20d_pct",
    "ma20",
    "ma60",
    "rsi14",
    "macd_hist",
    "adx14",
    "volume_ratio",
)
# PeriodMetrics keys of FinancialSnapshotDTO.periods[0] (the newest period)
FINANCIAL_PERIOD_KEYS = (
    "revenue_yoy",
    "profit_dedt_yoy",
    "gross_margin",
    "roe",
    "cash_quality",
    "debt_to_assets",
)
_MISSING = (None, "", "N/A")


def _present(value: Any) -> bool:
    return not isinstance(value, (dict, list)) and value not in _MISSING


def _pick(source: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(source, Mapping):
        return {}
    return {key: source[key] for key in keys if key in source and _present(source[key])}


def _valuation_numbers(result: Mapping[str, Any]) -> dict[str, Any]:
    return _pick(result.get("valuation_indicators"), VALUATION_KEYS)


def _technical_numbers(result: Mapping[str, Any]) -> dict[str, Any]:
    return _pick(result.get("technical_indicators"), TECHNICAL_KEYS)


def _financial_numbers(result: Mapping[str, Any]) -> dict[str, Any]:
    numbers = _pick(result, ("financial_score",))
    indicators = result.get("financial_indicators")
    periods = indicators.get("periods") if isinstance(indicators, Mapping) else None
    if isinstance(periods, list) and periods and isinstance(periods[0], Mapping):
        numbers.update(_pick(periods[0], ("period",)))
        numbers.update(_pick(periods[0], FINANCIAL_PERIOD_KEYS))
    return numbers


def _search_numbers(indicators_field: str) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """SearchSnapshotDTO: whether anything was found, and how many results per dimension."""

    def numbers(result: Mapping[str, Any]) -> dict[str, Any]:
        snapshot = result.get(indicators_field)
        if not isinstance(snapshot, Mapping):
            return {}
        out: dict[str, Any] = {}
        if isinstance(snapshot.get("has_information"), bool):
            out["has_information"] = snapshot["has_information"]
        for dimension in snapshot.get("dimensions") or []:
            if isinstance(dimension, Mapping) and dimension.get("name"):
                out[f"{dimension['name']}_results"] = len(dimension.get("items") or [])
        for field in ("positive_catalysts", "negative_catalysts"):
            if isinstance(result.get(field), list):
                out[field] = len(result[field])
        return out

    return numbers


KNOWN_EXPERTS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "valuation_modeler": _valuation_numbers,
    "technical_analyst": _technical_numbers,
    "financial_auditor": _financial_numbers,
    "macro_intelligence": _search_numbers("macro_indicators"),
    "catalyst_detective": _search_numbers("catalyst_indicators"),
}


def _first(result: Mapping[str, Any], fields: tuple[str, ...]) -> Any:
    return next((result[f] for f in fields if f in result and result[f] is not None), None)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _risk_text(item: Any) -> str:
    """A risk line: plain text, or a research Catalyst's event."""
    if isinstance(item, Mapping):
        item = item.get("event") or item.get("risk") or ""
    return _clip(item, RISK_CHARS) if isinstance(item, str) else ""


def _risks(result: Mapping[str, Any]) -> list[str]:
    value = _first(result, RISK_FIELDS)
    items = value if isinstance(value, list) else [value]
    risks = [text for text in (_risk_text(i) for i in items) if text]
    return risks[:MAX_RISKS]


def _digest(expert: str, result: Mapping[str, Any]) -> ExpertDigest:
    signal = _first(result, SIGNAL_FIELDS)
    confidence = _first(result, CONFIDENCE_FIELDS)
    where = f"expert_results.{expert}"
    if signal is None or confidence is None:
        missing = "signal" if signal is None else "confidence"
        kind = "known expert" if expert in KNOWN_EXPERTS else "unknown expert"
        raise InvalidExpertResultsError(f"{where}: {kind} result has no {missing}")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise InvalidExpertResultsError(f"{where}.confidence: not a number: {confidence!r}")
    given = result.get("key_numbers")
    if isinstance(given, Mapping):
        numbers = {k: v for k, v in given.items() if _present(v)}
    else:
        numbers = KNOWN_EXPERTS.get(expert, lambda _: {})(result)
    reasoning = _first(result, REASONING_FIELDS)
    try:
        return ExpertDigest(
            expert=expert,
            signal=str(signal).strip(),
            confidence=confidence,
            key_reasoning=_clip(reasoning, REASONING_CHARS) if isinstance(reasoning, str) else "",
            risk_warnings=_risks(result),
            key_numbers=numbers,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise InvalidExpertResultsError(f"{where}.{field}: {first['msg']}") from exc


def digest_expert_results(expert_results: Mapping[str, Mapping[str, Any]]) -> list[ExpertDigest]:
    """One digest per expert, known experts first in a fixed order; an empty result (a failed
    expert) is skipped, a malformed one is a 400, and nothing usable at all is a 400."""
    if not expert_results:
        raise InvalidExpertResultsError("expert_results is empty: there is nothing to debate")
    order = [e for e in KNOWN_EXPERTS if e in expert_results]
    order += [e for e in expert_results if e not in KNOWN_EXPERTS]
    digests = []
    for expert in order:
        result = expert_results[expert]
        if not result:
            continue
        if not isinstance(result, Mapping):
            raise InvalidExpertResultsError(f"expert_results.{expert}: not an object")
        digests.append(_digest(expert, result))
    if not digests:
        raise InvalidExpertResultsError("expert_results holds no usable expert result (all are empty)")
    return digests
