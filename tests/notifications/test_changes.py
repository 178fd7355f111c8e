"""The changes between two runs' tables, as the digest states them first."""

from __future__ import annotations

from stockdesk.notifications.application import ChangeKind, DigestRow, changes_between


def row(symbol: str, action: str, close: float | None = None, stop: float | None = None) -> DigestRow:
    return DigestRow(symbol=symbol, name=f"n{symbol}", action=action, close=close, stop=stop)


def test_new_buys_and_sells_held_turns_and_crossed_stops() -> None:
    previous = [
        row("A", "HOLD"), row("B", "BUY"), row("C", "HOLD"), row("D", "HOLD", close=10.0, stop=9.5),
        row("E", "HOLD", close=9.0, stop=9.5), row("H", "HOLD"), row("X", "HOLD"),
    ]  # fmt: skip
    current = [
        row("A", "BUY"), row("B", "BUY"), row("C", "SELL"), row("D", "HOLD", close=9.4, stop=9.0),
        row("E", "HOLD", close=8.0, stop=7.5), row("H", "EXIT"), row("X", "TRIM"), row("N", "BUY"),
    ]  # fmt: skip
    found = changes_between(previous, current, held={"H", "X"})
    assert [(c.kind, c.symbol, c.before, c.after) for c in found] == [
        (ChangeKind.NEW_BUY, "A", "HOLD", "BUY"),
        (ChangeKind.NEW_SELL, "C", "HOLD", "SELL"),
        (ChangeKind.STOP_CROSSED, "D", "HOLD", "HOLD"),
        (ChangeKind.HELD_EXIT, "H", "HOLD", "EXIT"),
        (ChangeKind.HELD_TRIM, "X", "HOLD", "TRIM"),
        (ChangeKind.NEW_BUY, "N", None, "BUY"),
    ]
    stop = found[2]
    assert (stop.level, stop.price) == (9.5, 9.4)  # the last run's stop, today's close


def test_a_first_run_has_only_its_buys_and_sells_and_a_non_holder_trim_is_no_change() -> None:
    found = changes_between([], [row("A", "BUY"), row("B", "HOLD"), row("C", "TRIM", close=1.0, stop=2.0)])
    assert [(c.kind, c.symbol) for c in found] == [(ChangeKind.NEW_BUY, "A")]
