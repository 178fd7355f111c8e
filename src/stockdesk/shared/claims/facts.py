"""The input a model was shown, read as field -> values: what the checks compare its claims with.

Any nesting is accepted (a snapshot dict, a list of digests with `key_numbers`, ...). A list named
`periods` is a financial snapshot's, newest first: only its newest period counts as "the" value,
and its gross margin against the same period a year earlier gives the margin trend.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MISSING = {"", "N/A", "NA", "n/a", "None", "null"}
MIN_SIGN = 0.5  # |growth| below this (in %) has no direction worth arguing about
_PERIOD = re.compile(r"^((?:19|20)\d{2})(.*)$")


@dataclass
class Facts:
    numbers: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    missing: set[str] = field(default_factory=set)
    strings: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    words: list[str] = field(default_factory=list)  # every key and text value: what references may cite
    newest_period: str | None = None

    def number(self, keys: tuple[str, ...]) -> tuple[str, float] | None:
        """(field, value) of the first key holding a number; None when the values of it disagree."""
        for key in keys:
            values = self.numbers.get(key)
            if values:
                return (key, values[0]) if all(abs(v - values[0]) < 1e-9 for v in values) else None
        return None

    def has_number(self, keys: tuple[str, ...]) -> tuple[str, float] | None:
        """(field, value) of any key holding a number, for "X is unavailable" claims."""
        for key in keys:
            if self.numbers.get(key):
                return key, self.numbers[key][0]
        return None

    def sign(self, keys: tuple[str, ...]) -> tuple[str, float, int] | None:
        """(field, value, +1/-1) of the first key present; None when zero-ish or not consistent."""
        found = self.number(keys)
        if found is None or abs(found[1]) < MIN_SIGN:
            return None
        return found[0], found[1], 1 if found[1] > 0 else -1

    def trend(self, key: str) -> tuple[str, int] | None:
        """A trend field ("同比上升 2.2%" / "同比下降 x%" / a derived change) as (text, +1/-1)."""
        for text in self.strings.get(key, []):
            if "上升" in text or "提升" in text:
                return text, 1
            if "下降" in text or "下滑" in text:
                return text, -1
        values = self.numbers.get(key)
        if values and abs(values[0]) >= MIN_SIGN:
            return f"{values[0]:+.2f} 个百分点", 1 if values[0] > 0 else -1
        return None

    @property
    def text(self) -> str:
        return "\n".join(self.words)


def _number(value: str) -> float | None:
    try:
        return float(value.replace(",", "").rstrip("%"))
    except ValueError:
        return None


def _margin_change(periods: list[Any]) -> float | None:
    """Newest gross margin minus the same period's a year earlier (year-to-date figures compare so)."""
    newest = periods[0]
    label = str(newest.get("period", ""))
    match = _PERIOD.match(label)
    if not match or not isinstance(newest.get("gross_margin"), (int, float)):
        return None
    earlier = f"{int(match.group(1)) - 1}{match.group(2)}"
    for period in periods[1:]:
        if isinstance(period, Mapping) and period.get("period") == earlier:
            margin = period.get("gross_margin")
            if isinstance(margin, (int, float)) and not isinstance(margin, bool):
                return float(newest["gross_margin"]) - float(margin)
    return None


def _read_string(out: Facts, value: str, key: str | None) -> None:
    """A string: a word of the input, a missing mark, a number written as text, or a named string."""
    if not key:
        out.words.append(value)
    elif value.strip() in MISSING:
        out.missing.add(key)
    elif (number := _number(value.strip())) is not None:
        out.numbers[key].append(number)
    else:
        out.strings[key].append(value)
        out.words.append(value)


def _newest_periods(out: Facts, periods: list[Any]) -> list[Any]:
    """Financial periods (newest first): the newest is read as facts; the gross-margin trend too."""
    out.newest_period = str(periods[0].get("period") or "") or None
    change = _margin_change(periods)
    if change is not None:
        out.numbers["gross_margin_trend"].append(change)
    return periods[:1]


def read_facts(facts: Any) -> Facts:
    """Flatten `facts` (dicts, lists, pydantic dumps) into field -> values."""
    out = Facts()

    def visit(value: Any, key: str | None) -> None:
        if isinstance(value, bool) or value is None:
            if value is None and key:
                out.missing.add(key)
            return
        if isinstance(value, (int, float)):
            if key:
                out.numbers[key].append(float(value))
        elif isinstance(value, str):
            _read_string(out, value, key)
        elif isinstance(value, Mapping):
            for name, item in value.items():
                out.words.append(str(name))
                visit(item, str(name))
        elif isinstance(value, (list, tuple)):
            if key == "periods" and value and all(isinstance(p, Mapping) for p in value):
                value = _newest_periods(out, list(value))
            for item in value:
                visit(item, key)

    visit(facts, None)
    return out
