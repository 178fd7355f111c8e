"""The day's rules verdicts through the coordinator's application interface: each verdict is the
one `stockdesk analyze SYMBOL --as-of D --rules-only` gives (the same request through the same
service), and each goes to the verdict
ledger the track record reads, through the ledger's application interface.

Ledger entries are named `paper-<book id>-<symbol>-<day>`: the book is their source, and appending
the same name again is a no-op, so a re-run never enters a verdict twice. The coordinator's own
recording is off for these sessions (`record_verdict=False`), so each verdict is entered once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date

from stockdesk.coordinator.application import ResearchCoordinatorService, ResearchRequest
from stockdesk.coordinator.application.verdict_ledger import verdict_record
from stockdesk.ledger.application import LedgerService
from stockdesk.paper.domain.models import DayVerdict, PaperBook
from stockdesk.shared.errors import StockdeskError


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
        self._coordinator = coordinator
        self._ledger = ledger

    def verdicts(self, book: PaperBook, symbols: Sequence[str], day: date) -> list[DayVerdict]:
        """One per symbol, in order; each verdict also goes to the ledger once."""
        return [self._one(book, symbol, day) for symbol in symbols]

    def _one(self, book: PaperBook, symbol: str, day: date) -> DayVerdict:
        request = ResearchRequest(
            symbol=symbol, as_of=day, rules_only=True, record_verdict=False, ignore_holdings=True
        )  # the book's own positions, not the user's holdings
        try:
            session = self._coordinator().run(request)
        except StockdeskError as error:
            return DayVerdict(day=day, symbol=symbol, action=None, note=error.message)
        verdict = session.verdict or {}
        action = str(verdict.get("action") or "").upper() or None
        if action is None:
            return DayVerdict(
                day=day, symbol=symbol, action=None, note=str(getattr(session, "error", None) or "no verdict")
            )
        if self._ledger is not None:
            record = verdict_record(session).model_copy(
                update={"entry_id": ledger_entry_id(book, symbol, day)}
            )
            self._ledger().append(record)
        return DayVerdict(
            day=day, symbol=symbol, action=action, confidence=float(verdict.get("confidence") or 0.0),
            note=str(verdict.get("evidence") or ""),
        )  # fmt: skip
