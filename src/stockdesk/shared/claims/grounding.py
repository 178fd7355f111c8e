"""Grounding: every number a model writes must be one its input gave it (rounding and % allowed).

Moved here from research so that research, the debate and the judge check quotes the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

# ASCII-only look-behind: in Chinese text a number often follows a CJK character directly ("价值10.9%")
NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![A-Za-z0-9_.])[-+]?\d+(?:\.\d+)?"
)
_DATE = re.compile(r"\d{4}[-/年.]\d{1,2}(?:[-/月.]\d{1,2}日?)?|\d{4}\s?[Qq][1-4]|[Qq][1-4]|\d{8}")
_YEAR = re.compile(r"^(19|20)\d{2}$")
SMALL_INTEGER_LIMIT = 12  # "4 个季度", "3 年": counts and ordinals are not data claims ...
_MEASURE_AFTER = re.compile(r"\s*(?:%|％|分位|倍|pp|个百分点)")  # ... but "5%" and "5 分位" are


class Grounding(BaseModel):
    """How many numbers were checked and which were not in the input (each once, in order)."""

    numbers_checked: int = 0
    ungrounded: list[str] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.ungrounded


def _decimals(token: str) -> int:
    return len(token.split(".", 1)[1]) if "." in token else 0


def numbers_in_text(text: str) -> list[str]:
    """Numeric tokens a reader would take as data claims (dates, years, small counts excluded)."""
    cleaned = _DATE.sub(" ", text)
    tokens = []
    for match in NUMBER.finditer(cleaned):
        plain = match.group(0).replace(",", "").lstrip("+")
        if _YEAR.match(plain):
            continue
        is_measure = bool(_MEASURE_AFTER.match(cleaned, match.end()))
        if "." not in plain and abs(int(plain)) <= SMALL_INTEGER_LIMIT and not is_measure:
            continue
        tokens.append(plain)
    return tokens


def snapshot_numbers(snapshot: Any) -> list[float]:
    """Every number in a snapshot (nested dicts/lists; numbers inside strings like '同比上升 2.2%')."""
    found: list[float] = []

    def visit(value: Any) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, (int, float)):
            found.append(float(value))
        elif isinstance(value, str):
            found.extend(float(t.replace(",", "")) for t in NUMBER.findall(value))
        elif isinstance(value, dict):
            for item in value.values():
                visit(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item)

    visit(snapshot)
    return found


def is_grounded(token: str, known: Iterable[float]) -> bool:
    """`token` equals a known number as written, rounded, as a percentage or a fraction, or unsigned."""
    value = float(token)
    tolerance = 0.5 * 10 ** (-_decimals(token)) + 1e-9
    for number in known:
        for candidate in (number, number * 100, number / 100, abs(number)):
            if abs(candidate - value) <= tolerance or abs(round(candidate, _decimals(token)) - value) <= 1e-9:
                return True
    return False


def check_grounding(texts: Iterable[str], snapshot: Any) -> Grounding:
    known = snapshot_numbers(snapshot)
    checked = 0
    ungrounded: list[str] = []
    for text in texts:
        for token in numbers_in_text(text):
            checked += 1
            if not is_grounded(token, known) and token not in ungrounded:
                ungrounded.append(token)
    return Grounding(numbers_checked=checked, ungrounded=ungrounded)
