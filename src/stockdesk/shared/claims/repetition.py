"""duplicate and repetition: the same bullet twice in a list, a sentence or clause said over and
over inside one text (a small model loops until its length limit).

Bullets are the same when their normalised text is equal or nearly so (and quotes the same
numbers: "ROE 12.5%" and "ROE 4.5%" are two claims). Inside a text a repeated sentence of 6+
characters counts; a clause counts from 8 characters, or from 6 when it comes three times, so
that "处于历史低位" said of PE and of PB is not a loop.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

from stockdesk.shared.claims.text_units import clauses, normalise, sentences, without_link
from stockdesk.shared.claims.violation import Violation

MIN_SENTENCE = 6
MIN_CLAUSE = 8  # "整体财务状况不佳" twice in one reasoning (000338.SZ demo) is a loop
MIN_SHORT_CLAUSE_COUNT = 3
NEAR = 0.9
_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def same_bullet(a: str, b: str) -> bool:
    left, right = normalise(a), normalise(b)
    if not left or not right:
        return False
    if left == right:
        return True
    if min(len(left), len(right)) < MIN_SENTENCE or _DIGITS.findall(a) != _DIGITS.findall(b):
        return False
    return SequenceMatcher(None, left, right).ratio() >= NEAR


def duplicates(field: str, bullets: Sequence[str]) -> list[Violation]:
    found = []
    for j, bullet in enumerate(bullets):
        first = next((i for i in range(j) if same_bullet(bullets[i], bullet)), None)
        if first is not None:
            detail = f"与第 {first + 1} 条重复：「{bullet.strip()}」。每条只说一件事，删去重复项。"
            found.append(Violation(kind="duplicate", field=field, item=j, text=bullet, detail=detail))
    return found


def _unique(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        if normalise(item) not in seen:
            seen.add(normalise(item))
            out.append(item)
    return out


def repeated_units(text: str) -> list[tuple[str, int]]:
    """(unit, times) for sentences said twice or more, then clauses looping inside the rest."""
    said = sentences(text)
    counts = Counter(normalise(s) for s in said)
    once = _unique(said)
    looping = [
        (s, counts[normalise(s)])
        for s in once
        if len(normalise(s)) >= MIN_SENTENCE and counts[normalise(s)] > 1
    ]
    parts = [without_link(c) for s in once for c in clauses(s)]
    clause_counts = Counter(normalise(c) for c in parts)

    def loops(clause: str) -> bool:
        size, count = len(normalise(clause)), clause_counts[normalise(clause)]
        return count > 1 and (
            size >= MIN_CLAUSE or (size >= MIN_SENTENCE and count >= MIN_SHORT_CLAUSE_COUNT)
        )

    return looping + [(c, clause_counts[normalise(c)]) for c in _unique(parts) if loops(c)]


def repetition(field: str, item: int | None, text: str) -> list[Violation]:
    found = []
    for unit, times in repeated_units(text):
        detail = f"「{unit}」在同一段里重复了 {times} 次：每个意思只说一次，不要循环重复。"
        found.append(
            Violation(kind="repetition", field=field, item=item, text=unit, detail=detail, term=unit)
        )
    return found
