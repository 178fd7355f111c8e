"""Where the judge's lessons come from when a request asks for reflection and names none: the
verdict ledger's matured entries of the symbol (an adapter over the track record's scoring)."""

from __future__ import annotations

from datetime import date
from typing import Protocol

from stockdesk.coordinator.domain.dtos.session import Lesson


class ILessonSource(Protocol):
    def lessons(self, symbol: str, as_of: date) -> list[Lesson]:
        """The newest past verdicts of `symbol` whose outcome was known by `as_of` (bars after
        `as_of` are never read), newest first."""
        ...
