"""How much work one REST request may ask for: symbols, calendar span, iterations (422 beyond).

The request schemas carry hard bounds (documented in OpenAPI); these are the configured ones
(`max_universe_symbols`, `max_window_days`, `strategy_max_iterations`), checked before any work.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from stockdesk.shared.errors import LimitExceededError


@dataclass(frozen=True)
class RequestBounds:
    max_symbols: int = 500
    max_window_days: int = 366 * 15
    max_iterations: int = 50
    stored_symbols: Callable[[], int] | None = None  # what "all symbols" (no universe given) means

    def check_universe(self, symbols: list[str] | None) -> None:
        count = len(set(symbols)) if symbols else (self.stored_symbols() if self.stored_symbols else 0)
        if count > self.max_symbols:
            which = f"{count} symbols" if symbols else f"all {count} stored symbols"
            raise LimitExceededError(
                f"{which} asked; at most {self.max_symbols} per request (max_universe_symbols)",
                code="UNIVERSE_TOO_LARGE",
                details={"count": count, "max": self.max_symbols},  # a page words it in its language
            )

    def check_window(self, start: date | None, end: date | None) -> None:
        days = (end - start).days if start is not None and end is not None else 0
        if days > self.max_window_days:
            raise LimitExceededError(
                f"the window spans {days} days; at most {self.max_window_days} (max_window_days)",
                code="WINDOW_TOO_LONG",
                details={"days": days, "max": self.max_window_days},
            )

    def check_iterations(self, iterations: int) -> None:
        if iterations > self.max_iterations:
            raise LimitExceededError(
                f"{iterations} iterations asked; at most {self.max_iterations} (strategy_max_iterations)",
                code="TOO_MANY_ITERATIONS",
            )
