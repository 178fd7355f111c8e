"""Symbol lookup by what a person typed: the autocomplete (stored securities whose symbol or name
contains the text) and the resolution of a typed code or name to one stored symbol. The web forms
(analyze, watchlists, holdings) and the portfolio context use the same rules."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from stockdesk.data_engineering.domain.dtos import SecurityDTO

MAX_SUGGESTIONS = 20


class Suggestion(BaseModel):
    symbol: str
    label: str


def suggest(securities: Iterable[SecurityDTO], typed: str, limit: int = MAX_SUGGESTIONS) -> list[Suggestion]:
    """Symbol matches first (what a reader who knows the code expects), then name matches; case-blind."""
    needle = typed.strip().casefold()
    by_symbol: list[Suggestion] = []
    by_name: list[Suggestion] = []
    for security in securities:
        label = " · ".join(p for p in (security.symbol, security.name, security.industry) if p)
        item = Suggestion(symbol=security.symbol, label=label)
        if needle in security.symbol.casefold():
            by_symbol.append(item)
        elif security.name and needle in security.name.casefold():
            by_name.append(item)
    return [*by_symbol, *by_name][:limit]


def resolve_typed(securities: Iterable[SecurityDTO], typed: str) -> str | list[Suggestion]:
    """What a symbol field's text stands for when the form is sent without picking a suggestion.

    A code the store knows, or a name that one security has (exactly, else as a part of its name),
    is that security's symbol. Several securities matching is the list to choose from; nothing
    matching is the text as typed (the analysis then says the symbol is not in the store).
    """
    text = typed.strip()
    needle = text.casefold()
    known = list(securities)
    if not needle or any(s.symbol.casefold() == needle for s in known):
        return text
    exact = [s for s in known if s.name and s.name.casefold() == needle]
    if len(exact) == 1:
        return exact[0].symbol
    found = suggest(known, text)
    if len(found) == 1:
        return found[0].symbol
    return found or text
