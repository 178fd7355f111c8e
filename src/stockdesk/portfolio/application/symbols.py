"""Symbols checked against the store through the data context: a code in any spelling the data
context accepts, or a name that one stored security has (茅台 -> 600519.SH), is that security's
symbol; anything else is an UNKNOWN_SYMBOL error naming what was typed."""

from __future__ import annotations

from collections.abc import Callable

from stockdesk.data_engineering.application import SecurityDTO, normalize_symbol, resolve_typed
from stockdesk.portfolio.domain.errors import UnknownSymbolError
from stockdesk.shared.errors import BadRequestException


class SymbolCheck:
    """Reads the stored securities once per check (they change only on import or sync)."""

    def __init__(self, securities: Callable[[], list[SecurityDTO]]):
        self._securities = securities

    def known(self) -> set[str]:
        return {s.symbol for s in self._securities()}

    def canonical(self, typed: str) -> str | None:
        """The canonical spelling of a code (600519 -> 600519.SH), None when it is not one."""
        try:
            return normalize_symbol(typed)
        except BadRequestException:
            return None

    def resolve(self, typed: str) -> str:
        securities = self._securities()
        stored = {s.symbol for s in securities}
        code = self.canonical(typed)
        if code is not None and code in stored:
            return code
        found = resolve_typed(securities, typed)
        if isinstance(found, str):
            code = self.canonical(found)
            if code is not None and code in stored:
                return code
            raise UnknownSymbolError(
                f"unknown symbol {typed.strip()!r}: not in the store", details={"symbol": typed}
            )
        choices = ", ".join(s.symbol for s in found[:5])
        raise UnknownSymbolError(
            f"{typed.strip()!r} matches several securities ({choices}): give the code",
            details={"symbol": typed, "choices": [s.symbol for s in found]},
        )

    def resolve_all(self, typed: list[str]) -> list[str]:
        return [self.resolve(t) for t in typed]
