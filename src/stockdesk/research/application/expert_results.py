"""One expert's run as the desk carries it: the typed result, read back from its stored JSON.

Why: the coordinator keeps each expert's result for the audit trail and reads a few things out of
it (the snapshot a trade plan is priced from, the prompt sent). It used to read them out of dicts by
key; research owns the result types, so it parses a stored result into its type here and says where
its snapshot is. A stored session's JSON is what `stored(result)` writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any

from pydantic import BaseModel, ValidationError

from stockdesk.research.application.code_signals import INDICATOR_FIELDS, code_signal
from stockdesk.research.application.dtos import ExpertResult, RulesOnlyResultDTO
from stockdesk.research.application.evidence_cards import cards_for
from stockdesk.research.application.expert_views import RESULT_TYPES, InvalidExpertResult, first_error


def snapshot_of(expert: str, result: ExpertResult) -> dict[str, Any] | None:
    """The snapshot (JSON) the expert read, or None when the result carries none."""
    found = getattr(result, INDICATOR_FIELDS.get(expert, ""), None)
    return found if isinstance(found, dict) else None


def with_code_signal(expert: str, result: ExpertResult) -> ExpertResult:
    """The result with the rules' reading of its own snapshot (what an LLM result is stored with)."""
    return result.model_copy(update={"code_signal": code_signal(expert, snapshot_of(expert, result) or {})})


def rules_only_result(
    expert: str, symbol: str, as_of: date | None, snapshot: BaseModel
) -> RulesOnlyResultDTO:
    """The rules-only result: the snapshot, the code signal and the same cards an LLM result carries."""
    dumped = snapshot.model_dump(mode="json")
    return RulesOnlyResultDTO.model_validate(
        {
            "symbol": symbol,
            "as_of": as_of,
            "code_signal": code_signal(expert, dumped),
            "evidence_cards": cards_for(expert, snapshot),
            INDICATOR_FIELDS[expert]: dumped,
        }
    )


def expert_result(expert: str, data: Mapping[str, Any] | BaseModel) -> ExpertResult:
    """A result as its type: a typed result as it is, a stored one (JSON) parsed by the expert's
    result type (`rules_only` ones as RulesOnlyResultDTO). InvalidExpertResult when it is neither."""
    if isinstance(data, BaseModel):
        return data  # type: ignore[return-value]
    kind: type[BaseModel] | None = RulesOnlyResultDTO if data.get("rules_only") else RESULT_TYPES.get(expert)
    if kind is None:
        raise InvalidExpertResult(f"expert_results.{expert}: unknown expert")
    try:
        return kind.model_validate(data)  # type: ignore[return-value]
    except ValidationError as exc:
        raise InvalidExpertResult(f"expert_results.{expert}: {first_error(exc)}") from exc


def stored(result: ExpertResult) -> dict[str, Any]:
    """The JSON a session stores for the result (what `expert_result` reads back)."""
    return result.model_dump(mode="json", exclude_none=isinstance(result, RulesOnlyResultDTO))
