"""Evidence cards found in the facts a model was shown, and whether a text quotes one.

Why: research words and signs each snapshot figure in code (`id, expert, text_zh, text_en,
direction, strength, figures`); the card's direction says which side a figure serves. A text that
quotes a card (its words, or its figure next to the metric's name) takes that side's fact. The
cards are read as plain dicts wherever they sit in the facts (a view's `cards`, a digest's), so
the kernel imports nothing from research.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from stockdesk.shared.claims.grounding import is_grounded, numbers_in_text
from stockdesk.shared.claims.metrics import find_metrics
from stockdesk.shared.claims.text_units import clauses, normalise

CARD_KEYS = {"id", "direction", "text_zh"}
MIN_LABEL = 4  # a card's words this long, found in a text, are a quote of them
# "PE 历史分位 85（偏高）": the figure is the quote, the qualifier in brackets is code's verdict word
_QUALIFIER = re.compile(r"[（(].*$")


@dataclass(frozen=True)
class Card:
    id: str
    direction: int
    text: str
    labels: tuple[str, ...]  # normalised words of the card without their qualifier
    figures: tuple[tuple[str, float], ...]


def _card(value: Mapping[str, Any]) -> Card | None:
    direction = value.get("direction")
    if direction not in (-1, 0, 1) or isinstance(direction, bool):
        return None
    texts = [t for t in (value.get("text_zh"), value.get("text_en")) if isinstance(t, str)]
    labels = tuple(label for t in texts if len(label := normalise(_QUALIFIER.sub("", t))) >= MIN_LABEL)
    figures = value.get("figures") if isinstance(value.get("figures"), Mapping) else {}
    numbers = tuple(
        (str(k), float(v))
        for k, v in figures.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool)
    )
    return Card(str(value["id"]), int(direction), str(value.get("text_zh") or ""), labels, numbers)


def find_cards(facts: Any) -> list[Card]:
    """Every evidence card anywhere in `facts` (dicts and lists, any depth), each id once."""
    found: dict[str, Card] = {}

    def visit(value: Any) -> None:
        if isinstance(value, Mapping):
            if set(value) >= CARD_KEYS and (card := _card(value)) is not None:
                found.setdefault(card.id, card)
                return
            for item in value.values():
                visit(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item)

    visit(facts)
    return list(found.values())


def _figure_quoted(clause: str, key: str, value: float) -> bool:
    """The figure's number in the clause, beside its metric's name or its field name."""
    if not any(is_grounded(token, [value]) and abs(float(token)) > 0 for token in numbers_in_text(clause)):
        return False
    if key.lower() in clause.lower():
        return True
    return any(key in mention.metric.keys for mention in find_metrics(clause))


def quotes(card: Card, text: str) -> bool:
    """Does `text` quote `card`: its words, or one of its figures with the metric named?"""
    flat = normalise(text)
    if any(label in flat for label in card.labels):
        return True
    return any(_figure_quoted(clause, k, v) for clause in clauses(text) for k, v in card.figures)
