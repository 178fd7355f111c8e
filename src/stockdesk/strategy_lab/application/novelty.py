"""Skipping parameter sets a run already tried, with a concrete untried neighbour as the fix.

A set is identified by its family and its values (`key()` starts with strategy_type), so the same
numbers in another family are a new set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pydantic import ValidationError

from stockdesk.strategy_lab.domain.errors import ValidationErrorDetail
from stockdesk.strategy_lab.domain.params import FAMILY_ALLOWED, StrategyParams, validate_params


def untried_neighbour(params: StrategyParams, tried: set[tuple]) -> StrategyParams | None:
    """The first valid, untried set of the same family that differs from `params` in one field by
    one allowed step."""
    allowed = FAMILY_ALLOWED[params.strategy_type]
    for name, values in allowed.items():
        index = values.index(getattr(params, name))
        for step in (1, -1):
            if 0 <= index + step < len(values):
                try:
                    candidate = validate_params({**params.model_dump(), name: values[index + step]})
                except ValidationError:
                    continue
                if candidate.key() not in tried:
                    return candidate
    return None


def duplicate_check(
    tried_sets: Iterable[StrategyParams],
) -> Callable[[StrategyParams], list[ValidationErrorDetail]]:
    """A `reject` callback for generate_with_feedback: already tried -> one error with a suggestion."""
    tried = {p.key() for p in tried_sets}

    def reject(params: StrategyParams) -> list[ValidationErrorDetail]:
        if params.key() not in tried:
            return []
        neighbour = untried_neighbour(params, tried)
        changes = (
            ", ".join(
                f"{name} {getattr(neighbour, name)!r}"
                for name in FAMILY_ALLOWED[params.strategy_type]
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
                suggestion=f"Change at least one parameter, e.g. {changes}, or try another family"
                if changes
                else "Change several parameters or try another family: this set's neighbours were all tried",
                message=f"this {params.strategy_type} parameter set was already backtested in this run",
            )
        ]

    return reject
