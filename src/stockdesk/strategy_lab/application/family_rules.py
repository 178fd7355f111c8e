"""Each family's cross-parameter rules as data, so feedback can name a concrete fix.

The model validators in domain/params.py decide; these mirror them to answer two questions the
validators cannot: which values of a field keep a set consistent with its other (valid) fields,
and what to change when a set breaks a rule. Tests check both agree on every combination.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from stockdesk.strategy_lab.domain.params import FAMILY_ALLOWED

Show = Callable[[Any], str]  # how a value is written in the feedback (feedback.show)


def _closest(values: list[Any], target: Any) -> Any:
    """The value nearest `target` (ties to the lower one); the first when they are not numbers."""
    try:
        return min(values, key=lambda value: (abs(value - target), value))
    except TypeError:
        return values[0]


@dataclass(frozen=True)
class OrderRule:
    """`low` below `high` (strictly or not); `high == off` switches the rule off (trend_ma 0)."""

    family: str
    low: str
    high: str
    strict: bool
    why: str
    off: Any = None

    @property
    def fields(self) -> tuple[str, str]:
        return (self.low, self.high)

    def holds(self, values: Mapping[str, Any]) -> bool:
        low, high = values[self.low], values[self.high]
        if self.off is not None and high == self.off:
            return True
        return low < high if self.strict else low <= high

    def fixes(self, values: Mapping[str, Any], shown: Show) -> list[str]:
        """Each way out, as text: change one field to a value that keeps the rule."""
        low, high = values[self.low], values[self.high]
        above = ">" if self.strict else ">="
        below = "<" if self.strict else "<="
        options = []
        highs = [
            v
            for v in FAMILY_ALLOWED[self.family][self.high]
            if v != self.off and self.holds({**values, self.high: v})
        ]
        if highs:
            text = f"{self.high} {above} {shown(low)}, e.g. {shown(_closest(highs, high))}"
            if self.off is not None:
                text += f" (or {shown(self.off)} to switch it off)"
            options.append(text)
        lows = [v for v in FAMILY_ALLOWED[self.family][self.low] if self.holds({**values, self.low: v})]
        if lows:
            options.append(f"{self.low} {below} {shown(high)}, e.g. {shown(_closest(lows, low))}")
        return options


@dataclass(frozen=True)
class RequiredWhenRule:
    """`field == value` requires `other == required` (mean reversion: daily rebalancing has no offset)."""

    family: str
    field: str
    value: Any
    other: str
    required: Any
    why: str

    @property
    def fields(self) -> tuple[str, str]:
        return (self.field, self.other)

    def holds(self, values: Mapping[str, Any]) -> bool:
        return values[self.field] != self.value or values[self.other] == self.required

    def fixes(self, values: Mapping[str, Any], shown: Show) -> list[str]:
        """Each way out, as text: change one field to a value that keeps the rule."""
        options = [f"{self.other} {shown(self.required)} with {self.field} {shown(self.value)}"]
        others = [v for v in FAMILY_ALLOWED[self.family][self.field] if v != self.value]
        if others:
            options.append(
                f"{self.field} {shown(others[0])} to keep {self.other} {shown(values[self.other])}"
            )
        return options


Rule = OrderRule | RequiredWhenRule

FAMILY_RULES: dict[str, tuple[Rule, ...]] = {
    "momentum": (
        OrderRule(
            "momentum", "momentum_period", "ma_periods", False, "momentum_period must not exceed ma_periods"
        ),
    ),
    "mean_reversion": (
        OrderRule("mean_reversion", "exit_z", "entry_z", True, "exit_z must be below entry_z"),
        RequiredWhenRule(
            "mean_reversion",
            "resample",
            "D",
            "resample_offset",
            0,
            'resample_offset must be 0 with resample "D"',
        ),
    ),
    "volatility": (
        OrderRule("volatility", "target_vol", "max_vol", True, "target_vol must be below max_vol"),
        OrderRule(
            "volatility", "vol_period", "trend_ma", False, "trend_ma must be 0 or >= vol_period", off=0
        ),
    ),
}


def _valid(family: str, name: str, value: Any) -> bool:
    allowed = FAMILY_ALLOWED[family].get(name)
    return allowed is not None and not isinstance(value, bool) and value in allowed


def consistent_candidates(
    name: str, siblings: Mapping[str, Any], family: str = "momentum"
) -> list[Any] | None:
    """Allowed values of `name` that keep every rule with the other, valid fields (None: no constraint)."""
    allowed = FAMILY_ALLOWED[family].get(name)
    if allowed is None:
        return None
    constrained = False
    keep = list(allowed)
    for rule in FAMILY_RULES[family]:
        if name not in rule.fields:
            continue
        others = [f for f in rule.fields if f != name]
        if not all(_valid(family, other, siblings.get(other)) for other in others):
            continue
        constrained = True
        keep = [v for v in keep if rule.holds({**siblings, name: v})]
    return keep if constrained and keep else None


def broken_rule(family: str, values: Mapping[str, Any]) -> Rule | None:
    """The first rule a set with valid values breaks."""
    for rule in FAMILY_RULES[family]:
        if all(_valid(family, f, values.get(f)) for f in rule.fields) and not rule.holds(values):
            return rule
    return None
