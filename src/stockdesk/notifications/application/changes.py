"""What changed between two runs' tables: the digest's first part, computed by code in one place.

Given the last run's rows and this run's (and which symbols are held), a change is:
- `new_buy` / `new_sell`: a symbol whose action is now BUY (SELL) and was not at the last run (or
  was not in it);
- `held_trim` / `held_exit`: a held symbol whose action turned to TRIM (EXIT);
- `stop_crossed`: a symbol whose close is now at or below the stop the last run gave it, having
  closed above it then (the level is the last run's stop: the one an investor acted on).
Changes come in the order of this run's rows; a symbol may have two (a new SELL and a crossed stop).
"""

from __future__ import annotations

from collections.abc import Collection

from stockdesk.notifications.domain.digest import ChangeKind, DigestChange, DigestRow

_TURNS = {"BUY": ChangeKind.NEW_BUY, "SELL": ChangeKind.NEW_SELL}
_HELD_TURNS = {"TRIM": ChangeKind.HELD_TRIM, "EXIT": ChangeKind.HELD_EXIT}


def _action_change(row: DigestRow, before: DigestRow | None, held: bool) -> DigestChange | None:
    action = row.action.upper()
    previous = before.action.upper() if before else None
    kind = (_HELD_TURNS if held else {}).get(action) or _TURNS.get(action)
    if kind is None or previous == action:
        return None
    return DigestChange(kind=kind, symbol=row.symbol, name=row.name, before=previous, after=action)


def _stop_change(row: DigestRow, before: DigestRow | None) -> DigestChange | None:
    if before is None or before.stop is None or before.close is None or row.close is None:
        return None
    if before.close > before.stop >= row.close:
        return DigestChange(
            kind=ChangeKind.STOP_CROSSED, symbol=row.symbol, name=row.name,
            before=before.action.upper(), after=row.action.upper(), level=before.stop, price=row.close,
        )  # fmt: skip
    return None


def changes_between(
    previous: list[DigestRow], current: list[DigestRow], held: Collection[str] = ()
) -> list[DigestChange]:
    """The changes from the last run's rows (`previous`, empty for a first run) to this run's."""
    before = {row.symbol: row for row in previous}
    found = []
    for row in current:
        last = before.get(row.symbol)
        for change in (_action_change(row, last, row.symbol in held), _stop_change(row, last)):
            if change is not None:
                found.append(change)
    return found
