"""Choices mode: what a debate agent returns when it only picks and ranks evidence cards.

Why: a 1.5B model on two cores writes Chinese prose that argues against its own numbers, repeats
itself and stops mid-sentence. In choices mode it answers a few ids from the cards code wrote, and
code words every sentence (application/choice_text.py). The schema the model is given enumerates
the card ids of this debate (`choice_model`), so a grammar-constrained model cannot name a card
that does not exist; the direction rules (a bull supports only with cards read bullish or neutral)
are enforced in code after the answer (application/choices.py).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from stockdesk.debate.domain.model.enums import DebateDirection

ChoiceRole = Literal["bull", "bear", "resolution"]


SCHEMA_NAMES = {"bull": "BullChoice", "bear": "BearChoice", "resolution": "ResolutionChoice"}


SIDES = {"bull": ({1, 0}, {-1}), "bear": ({-1, 0}, {1})}
"""An advocate's (support, concede) directions: a bull supports with cards read bullish or neutral
and concedes bearish ones; a bear the mirror image."""


def _ids_field(ids: list[str], most: int, least: int = 0, shown: list[str] | None = None) -> tuple[Any, Any]:
    """A list of ids from `ids`. The schema a model is given enumerates `shown` (default: `ids`),
    which llama.cpp's grammar enforces; validation accepts any of `ids`, so a provider without a
    grammar that picks against the rule is answered by the code's direction round (re-asked once,
    then dropped), not by a failed parse."""
    shown = ids if shown is None else shown
    if not ids:
        return list[str], Field(default_factory=list, max_length=0)
    kind: Any = Literal[tuple(ids)]  # type: ignore[valid-type]
    items = {"type": "string", "enum": shown} if shown else {"type": "string"}  # no empty enum
    least = least if shown else 0
    extra = {"items": items, **({"maxItems": 0} if not shown else {})}
    return list[kind], Field(default_factory=list, min_length=least, max_length=most, json_schema_extra=extra)


def _pairs_field(ids: list[str], bullish: list[str], bearish: list[str]) -> tuple[Any, Any]:
    """Up to 2 disagreements, each a [bullish card, bearish card] pair: the schema shows each place
    only the cards of its side (none at all when a side has no card); validation takes any id."""
    if not ids or not bullish or not bearish:
        return list[list[str]], Field(default_factory=list, max_length=0)
    kind: Any = Literal[tuple(ids)]  # type: ignore[valid-type]
    pair = {
        "type": "array",
        "prefixItems": [{"type": "string", "enum": bullish}, {"type": "string", "enum": bearish}],
        "minItems": 2,
        "maxItems": 2,
    }
    return list[list[kind]], Field(default_factory=list, max_length=2, json_schema_extra={"items": pair})


def choice_model(role: ChoiceRole, cards: list[tuple[str, int]]) -> type[BaseModel]:
    """The answer schema for `role`, card ids as enums (what llama.cpp's grammar enforces): an
    advocate's fields list only the cards of their direction, so the embedded model cannot pick
    against its side; the resolution's decisive cards depend on the direction it gives in the same
    answer, so its direction rule is checked in code (application/choices.py)."""
    ids = [card_id for card_id, _ in cards]
    if role == "resolution":
        return create_model(
            SCHEMA_NAMES[role],
            direction=(DebateDirection, ...),
            confidence=(float, Field(ge=0.0, le=1.0)),
            decisive=_ids_field(ids, 3, least=1),
            disagreements=_pairs_field(ids, [i for i, d in cards if d > 0], [i for i, d in cards if d < 0]),
        )
    support, concede = SIDES[role]
    return create_model(
        SCHEMA_NAMES[role],
        support=_ids_field(ids, 3, least=1, shown=[i for i, d in cards if d in support]),
        concede=_ids_field(ids, 2, shown=[i for i, d in cards if d in concede]),
    )
