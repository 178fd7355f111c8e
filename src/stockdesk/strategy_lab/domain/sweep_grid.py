"""A sweep spec's parameter sets: the grid's product, each set validated by the parameter union.

Why per family: a `strategy_type` list may mix families, and a parameter belongs to some of them
only (`vol_period` means nothing to momentum), so each family takes the product of ITS parameters
in the grid. A combination the union rejects (a rule between parameters, a value outside the
allowed set) is skipped with the union's reason; a family missing a required parameter is skipped
once, not once per combination. Task keys are short hashes of the validated, canonical parameters,
so the same set is the same task whatever the grid's order or spelling (5 or 5.0).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from itertools import product
from typing import Any

from pydantic import ValidationError

from stockdesk.shared.tasks.canonical import canonical_json
from stockdesk.strategy_lab.domain.params import (
    DEFAULT_FAMILY,
    FAMILIES,
    StrategyParams,
    family_fields,
    validate_params,
)
from stockdesk.strategy_lab.domain.sweep import (
    LLM_KEY_PREFIX,
    MAX_SETS,
    SkippedSet,
    SweepGridError,
    SweepPlan,
    SweepSet,
    SweepSpec,
)

KEY_CHARS = 16  # 64 bits of sha256: no collision in any sweep of MAX_SETS sets


def params_key(params: StrategyParams) -> str:
    """A set's stable task key: the start of the sha256 of its canonical JSON."""
    text = canonical_json(params.model_dump(mode="json"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:KEY_CHARS]


def llm_key(number: int) -> str:
    return f"{LLM_KEY_PREFIX}{number:04d}"


def plan_sweep(spec: SweepSpec) -> SweepPlan:
    """The sweep's tasks (in order) and the grid combinations skipped; SweepGridError if none is valid."""
    if spec.llm_runs is not None:
        return SweepPlan([SweepSet(llm_key(n), n, None) for n in range(1, spec.llm_runs + 1)], [])
    assert spec.grid is not None
    return expand_grid(spec.grid)


def expand_grid(grid: Mapping[str, list[Any]]) -> SweepPlan:
    families = [str(f) for f in grid.get("strategy_type", [DEFAULT_FAMILY])]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        raise SweepGridError(
            f"grid: unknown strategy_type {', '.join(map(repr, unknown))} (families: {', '.join(FAMILIES)})"
        )
    names = [name for name in grid if name != "strategy_type"]
    fields = {family: family_fields(family) for family in families}
    stray = [n for n in names if not any(n in fields[f] for f in families)]
    if stray:
        raise SweepGridError(
            f"grid: {', '.join(stray)} {'is not a parameter' if len(stray) == 1 else 'are not parameters'} "
            f"of {', '.join(families)}"
        )
    size = sum(math.prod(len(grid[n]) for n in names if n in fields[f]) for f in dict.fromkeys(families))
    if size > MAX_SETS:
        raise SweepGridError(f"grid: {size:,} combinations, more than the {MAX_SETS:,} a sweep may hold")
    sets: dict[str, SweepSet] = {}
    skipped: list[SkippedSet] = []
    for family in dict.fromkeys(families):
        own = [n for n in names if n in fields[family]]
        missing = [n for n in fields[family] if n != "strategy_type" and n not in own]
        if missing:
            reason = f"no value for {family} parameter(s): {', '.join(missing)}"
            skipped.append(SkippedSet(values={"strategy_type": family}, reason=reason))
            continue
        for combo in product(*(grid[n] for n in own)):
            values = {"strategy_type": family, **dict(zip(own, combo, strict=True))}
            try:
                params = validate_params(values)
            except ValidationError as exc:
                skipped.append(SkippedSet(values=values, reason=rejection(exc)))
                continue
            key = params_key(params)
            if key not in sets:  # the same set written twice (a repeated value) is one task
                sets[key] = SweepSet(key, len(sets) + 1, params)
    if not sets:
        first = skipped[0].reason if skipped else "the grid is empty"
        raise SweepGridError(
            f"grid: none of its {size:,} combinations is a valid parameter set (first: {first})"
        )
    return SweepPlan(list(sets.values()), skipped)


def rejection(exc: ValidationError) -> str:
    """The union's errors on one line: `field: message` (a rule between fields: its message)."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"][1:])  # loc[0] is the family's tag
        message = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)
