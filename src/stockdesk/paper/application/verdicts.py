"""The day's rules verdicts from the coordinator's application interface (`RulesDayVerdicts`, the
one source the portfolio view reads too), each entered in the verdict ledger the track record reads,
through the ledger's application interface.

Ledger entries are named `paper-<book id>-<symbol>-<day>`: the book is their source, and appending
the same name again is a no-op, so a re-run never enters a verdict twice. The coordinator's own
recording is off for these sessions (`record_verdict=False`), so each verdict is entered once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

from stockdesk.coordinator.application import ResearchCoordinatorService, RulesDayVerdicts
from stockdesk.coordinator.application.verdict_ledger import verdict_record
from stockdesk.ledger.application import LedgerService
from stockdesk.paper.domain.models import DayVerdict, PaperBook


def ledger_entry_id(book: PaperBook, symbol: str, day: date) -> str:
    """The ledger name of a book's verdict: the book as its source, unique per symbol and day."""
    return f"paper-{book.id}-{symbol}-{day.isoformat()}"


class RulesVerdicts:
    """A plain class (no port): the tests' scripted verdicts subclass it and override `verdicts`."""

    def __init__(
        self,
        coordinator: Callable[[], ResearchCoordinatorService],
        ledger: Callable[[], LedgerService] | None = None,
    ):
        self._source = RulesDayVerdicts(coordinator)
        self._ledger = ledger

    def verdicts(self, book: PaperBook, symbols: Sequence[str], day: date) -> list[DayVerdict]:
        """One per symbol, in order; each verdict also goes to the ledger once."""
        return [self._one(book, symbol, day) for symbol in symbols]

    def _one(self, book: PaperBook, symbol: str, day: date) -> DayVerdict:
        run = self._source.run(symbol, day)
        verdict = run.verdict
        if verdict.action is not None and run.session is not None and self._ledger is not None:
            record = verdict_record(run.session).model_copy(
                update={"entry_id": ledger_entry_id(book, symbol, day)}
            )
            self._ledger().append(record)
        return DayVerdict(
            day=day, symbol=symbol, action=verdict.action, confidence=verdict.confidence, note=verdict.note
        )
