"""Each expert's result -> its ExpertView: the one place an expert's own field names are read.

Why here: research defines the result types, so it maps each one's fields by type (the valuation
modeler's `valuation_verdict` Undervalued/Fair/Overvalued, the technical analyst's `signal`, ...)
instead of the other contexts guessing among synonyms. The key figures are a few snapshot numbers a
debater argues from, copied (never recomputed) so that a quote of them can be checked.

A result arrives as its DTO (a run in this process) or as its JSON (a stored session, a REST body,
a rules-only result: the snapshot and the code signal without an LLM answer); both give the same
view. A dict that is neither a known result nor an ExpertView is an `InvalidExpertResult`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from stockdesk.research.application.code_signals import INDICATOR_FIELDS, code_signal
from stockdesk.research.application.dtos import (
    CatalystDetectiveResultDTO,
    FinancialAuditorResultDTO,
    MacroIntelligenceResultDTO,
    RulesOnlyResultDTO,
    TechnicalAnalystResultDTO,
    ValuationModelerResultDTO,
)
from stockdesk.research.application.evidence_cards import cards_for
from stockdesk.research.domain.dtos.code_signal import Stance
from stockdesk.research.domain.dtos.evidence_card import EvidenceCard
from stockdesk.research.domain.dtos.expert_view import ExpertView, Figure
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.wording import say

EXPERT_ORDER = (
    "valuation_modeler",
    "technical_analyst",
    "financial_auditor",
    "macro_intelligence",
    "catalyst_detective",
)
RESULT_TYPES: dict[str, type[BaseModel]] = {
    "valuation_modeler": ValuationModelerResultDTO,
    "technical_analyst": TechnicalAnalystResultDTO,
    "financial_auditor": FinancialAuditorResultDTO,
    "macro_intelligence": MacroIntelligenceResultDTO,
    "catalyst_detective": CatalystDetectiveResultDTO,
}
# each result type's own verdict words, in the desk's three
STANCE_OF: dict[str, Stance] = {
    "Undervalued": "bullish", "Fair": "neutral", "Overvalued": "bearish",
    "STRONG_BULLISH": "bullish", "BULLISH": "bullish", "NEUTRAL": "neutral",
    "BEARISH": "bearish", "STRONG_BEARISH": "bearish",
    "Favorable": "bullish", "Neutral": "neutral", "Unfavorable": "bearish",
    "Positive": "bullish", "Negative": "bearish",
}  # fmt: skip
VALUATION_KEYS = ("current_price", "pe_ttm", "pe_percentile", "pb_percentile", "peg_ratio",
                  "graham_safety_margin", "roe", "growth_rate_avg")  # fmt: skip
TECHNICAL_KEYS = ("close", "change_20d_pct", "ma20", "ma60", "rsi14", "macd_hist", "adx14", "volume_ratio")
PERIOD_KEYS = ("period", "revenue_yoy", "profit_dedt_yoy", "gross_margin", "roe", "cash_quality",
               "debt_to_assets")  # fmt: skip
MAX_RISKS = 2


class InvalidExpertResult(BadRequestException):
    """An expert result that is neither a known result type nor an ExpertView (a 400)."""

    code = "INVALID_EXPERT_RESULTS"


def _figures(source: Any, keys: tuple[str, ...]) -> dict[str, Figure]:
    if not isinstance(source, Mapping):
        return {}
    return {
        k: source[k]
        for k in keys
        if isinstance(source.get(k), (int, float, str, bool)) and source[k] not in ("", "N/A")
    }


def _search_figures(snapshot: Any) -> dict[str, Figure]:
    """Whether anything was found, and how many items per search dimension."""
    if not isinstance(snapshot, Mapping):
        return {}
    out: dict[str, Figure] = {}
    if isinstance(snapshot.get("has_information"), bool):
        out["has_information"] = snapshot["has_information"]
    for dimension in snapshot.get("dimensions") or []:
        if isinstance(dimension, Mapping) and dimension.get("name"):
            out[f"{dimension['name']}_results"] = len(dimension.get("items") or [])
    return out


def key_figures(expert: str, snapshot: Mapping[str, Any]) -> dict[str, Figure]:
    """The snapshot numbers a debater may quote, by expert."""
    if expert == "valuation_modeler":
        return _figures(snapshot, VALUATION_KEYS)
    if expert == "technical_analyst":
        return _figures(snapshot, TECHNICAL_KEYS)
    if expert == "financial_auditor":
        periods = snapshot.get("periods")
        newest = periods[0] if isinstance(periods, list) and periods else {}
        return _figures(newest, PERIOD_KEYS)
    return _search_figures(snapshot)


def _llm_fields(result: BaseModel) -> tuple[str, float, str, list[str]]:
    """(own word, confidence, reasoning, risks) of an LLM result, by its type."""
    if isinstance(result, ValuationModelerResultDTO):
        return (
            result.valuation_verdict,
            result.confidence_score,
            result.reasoning_summary,
            result.risk_factors,
        )
    if isinstance(result, TechnicalAnalystResultDTO):
        return result.signal, result.confidence, result.summary_reasoning, [result.risk_warning]
    if isinstance(result, FinancialAuditorResultDTO):
        return result.signal, result.confidence, result.summary_reasoning, result.key_risks
    if isinstance(result, MacroIntelligenceResultDTO):
        return result.macro_environment, result.confidence_score, result.macro_summary, result.key_risks
    assert isinstance(result, CatalystDetectiveResultDTO)
    risks = [c.event for c in result.negative_catalysts]
    return result.catalyst_assessment, result.confidence_score, result.catalyst_summary, risks


def _cards(expert: str, snapshot: Any) -> list[EvidenceCard]:
    """The snapshot's cards; none from a snapshot that is not whole (a result stored with a partial
    one): a card is only ever worded from the snapshot type's own fields."""
    try:
        return cards_for(expert, snapshot)
    except ValidationError:
        return []


def view_of_result(expert: str, result: BaseModel) -> ExpertView:
    """The view of an LLM expert's typed result; its code signal read from the same snapshot."""
    snapshot = getattr(result, INDICATOR_FIELDS[expert])
    word, confidence, reasoning, risks = _llm_fields(result)
    code = code_signal(expert, snapshot)
    return ExpertView(
        expert=expert,
        stance=STANCE_OF.get(word, "neutral"),
        confidence=confidence,
        signal=word,
        has_data=code.has_data is not False,
        code_signal=code,
        key_figures=key_figures(expert, snapshot),
        cards=list(getattr(result, "evidence_cards", []) or _cards(expert, snapshot)),
        text=reasoning,
        risks=[r for r in risks if r][:MAX_RISKS],
    )


def view_of_rules(expert: str, snapshot: Mapping[str, Any]) -> ExpertView:
    """Rules-only: the code signal stands where the LLM's call would (no LLM text)."""
    code = code_signal(expert, snapshot)
    return ExpertView(
        expert=expert,
        stance=code.stance,
        confidence=code.confidence,
        signal=code.stance,
        has_data=code.has_data is not False,
        code_signal=code,
        key_figures=key_figures(expert, snapshot),
        cards=_cards(expert, snapshot),
        text="；".join(code.reasons),
        i18n={
            lang: {"text": say("signal.separator", lang).join(worded["reasons"])}
            for lang, worded in code.i18n.items()
        },
    )


def expert_view(expert: str, data: Mapping[str, Any] | BaseModel) -> ExpertView:
    """The view of one expert's result, whichever form it arrives in (see the module docstring)."""
    if isinstance(data, ExpertView):
        return data
    if isinstance(data, RulesOnlyResultDTO):
        snapshot = getattr(data, INDICATOR_FIELDS.get(expert, ""), None)
        return view_of_rules(expert, snapshot or {})
    if isinstance(data, BaseModel):
        return view_of_result(expert, data)
    where = f"expert_results.{expert}"
    if not isinstance(data, Mapping):
        raise InvalidExpertResult(f"{where}: not an object")
    if data.get("rules_only") and expert in INDICATOR_FIELDS:
        snapshot = data.get(INDICATOR_FIELDS[expert])
        return view_of_rules(expert, snapshot if isinstance(snapshot, Mapping) else {})
    kind = RESULT_TYPES.get(expert)
    if kind is not None and INDICATOR_FIELDS[expert] in data:
        try:
            return view_of_result(expert, kind.model_validate(data))
        except ValidationError as exc:
            raise InvalidExpertResult(f"{where}: {first_error(exc)}") from exc
    try:
        return ExpertView.model_validate({**data, "expert": expert})
    except ValidationError as exc:
        raise InvalidExpertResult(
            f"{where}: neither a {expert} result nor an expert view ({first_error(exc)})"
        ) from exc


def first_error(exc: ValidationError) -> str:
    """A validation error's first problem as `<field path>: <message>`, for a one-line 400."""
    first = exc.errors()[0]
    return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"


def expert_views(results: Mapping[str, Mapping[str, Any] | BaseModel]) -> list[ExpertView]:
    """One view per expert with a result, known experts first in a fixed order; an empty result (a
    failed expert) is skipped."""
    order = [e for e in EXPERT_ORDER if e in results] + [e for e in results if e not in EXPERT_ORDER]
    return [expert_view(e, results[e]) for e in order if results[e]]
