"""ILessonSource built on first use (the track record it reads is the evaluation context's, wired
by the entrypoints: the coordinator imports no evaluation code)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from stockdesk.coordinator.domain.dtos.session import Lesson
from stockdesk.coordinator.domain.ports.lessons import ILessonSource


class LazyLessonSource:
    def __init__(self, source: Callable[[], ILessonSource]):
        self._source = source

    def lessons(self, symbol: str, as_of: date) -> list[Lesson]:
        return self._source().lessons(symbol, as_of)
