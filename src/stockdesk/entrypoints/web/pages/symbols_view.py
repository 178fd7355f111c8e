"""Symbol autocomplete: the stored securities whose symbol or name contains what was typed."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from stockdesk.data_engineering.application import SecurityDTO

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
