"""Skipping parameter sets a run already tried, with a concrete untried neighbour as the fix."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import ValidationError

from stockdesk.strategy_lab.domain.errors import ValidationErrorDetail
from stockdesk.strategy_lab.domain.params import ALLOWED_VALUES, PARAM_FIELDS, MomentumStrategyParams


def untried_neighbour(params: MomentumStrategyParams, tried: set[tuple]) -> MomentumStrategyParams | None:
    """The first valid, untried set that differs from `params` in one field by one allowed step."""
    for name in PARAM_FIELDS:
        values = ALLOWED_VALUES[name]
        index = values.index(getattr(params, name))
        for step in (1, -1):
            if 0 <= index + step < len(values):
                try:
                    candidate = params.model_copy(update={name: values[index + step]})
                    candidate = MomentumStrategyParams.model_validate(candidate.model_dump())
                except ValidationError:
                    continue
                if candidate.key() not in tried:
                    return candidate
    return None


def duplicate_check(tried_sets: Iterable[MomentumStrategyParams]):
    """A `reject` callback for generate_with_feedback: already tried -> one error with a suggestion."""
    tried = {p.key() for p in tried_sets}

    def reject(params: MomentumStrategyParams) -> list[ValidationErrorDetail]:
        if params.key() not in tried:
            return []
        neighbour = untried_neighbour(params, tried)
        changes = (
            ", ".join(
                f"{name} {getattr(neighbour, name)!r}"
                for name in PARAM_FIELDS
                if getattr(neighbour, name) != getattr(params, name)
            )
            if neighbour
            else None
        )
        return [
            ValidationErrorDetail(
                field_path="params",
                error_type="already_tried",
                given_value=params.model_dump(mode="json"),
                suggestion=f"Change at least one parameter, e.g. {changes}"
                if changes
                else "Change several parameters: the neighbourhood of this set is exhausted",
                message="this parameter set was already backtested in this run",
            )
        ]

    return reject
