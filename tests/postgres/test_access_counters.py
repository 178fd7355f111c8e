"""Per-key limits kept in the database, on SQLite and PostgreSQL: counters and leases that two
processes (here two stores, each with its own engine) share without ever admitting one too many,
leases that lapse when their process stops renewing them, and a sliding minute."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from stockdesk.shared.db import Database
from stockdesk.shared.db.access_counter_store import SqlAccessCounters
from tests.postgres.both import sqlite_and_postgres  # noqa: F401

T0 = 1_800_000_000.0 - 1_800_000_000.0 % 60  # the start of a minute


@pytest.fixture
def second(database: Database) -> Iterator[Database]:
    """The same database through another engine, as a second server process has it."""
    database.ensure_schema()
    other = Database(database.url)
    yield other
    other.dispose()


def at(seconds: float) -> Callable[[], float]:
    return lambda: T0 + seconds


def race(count: int, attempt: Callable[[int], object]) -> list[object]:
    """`count` threads calling `attempt(n)` at once; their results."""
    barrier, results, errors = threading.Barrier(count), [None] * count, []

    def run(n: int) -> None:
        barrier.wait()
        try:
            results[n] = attempt(n)
        except Exception as exc:  # collected: the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    return results


def test_two_processes_admit_exactly_the_rate_between_them(database: Database, second: Database) -> None:
    stores = [SqlAccessCounters(database), SqlAccessCounters(second)]
    waits = race(12, lambda n: stores[n % 2].admit("key:k", "spending", 5))
    assert sum(1 for w in waits if w == 0) == 5
    assert all(isinstance(w, int) and 1 <= w <= 60 for w in waits if w != 0)
    assert stores[0].admit("key:other", "spending", 5) == 0  # per subject
    assert stores[1].admit("key:k", "sandbox", 5) == 0  # and per class


def test_two_processes_hold_at_most_the_concurrency_between_them(
    database: Database, second: Database
) -> None:
    stores = [SqlAccessCounters(database), SqlAccessCounters(second)]
    leases = race(8, lambda n: stores[n % 2].lease("key:k", "spending", 2))
    held = [lease for lease in leases if lease is not None]
    assert len(held) == 2
    assert stores[0].lease("key:k", "spending", 2) is None
    held[0]()  # type: ignore[operator]
    again = stores[1].lease("key:k", "spending", 2)
    assert again is not None
    again()
    held[1]()  # type: ignore[operator]


def test_a_lease_its_process_stopped_renewing_lapses(database: Database, second: Database) -> None:
    killed = SqlAccessCounters(database, lease_seconds=60, clock=at(0))
    assert killed.lease("key:k", "spending", 1) is not None
    killed.stop()  # its process is killed: no renewal, no release
    assert SqlAccessCounters(second, clock=at(59)).lease("key:k", "spending", 1) is None
    taken = SqlAccessCounters(second, clock=at(61)).lease("key:k", "spending", 1)
    assert taken is not None


def test_renewing_keeps_a_long_request_s_lease(database: Database, second: Database) -> None:
    clock = {"now": T0}
    alive = SqlAccessCounters(database, lease_seconds=60, clock=lambda: clock["now"])
    held = alive.lease("key:k", "spending", 1)
    assert held is not None
    clock["now"] = T0 + 50
    assert alive.renew() == 1
    assert SqlAccessCounters(second, clock=at(100)).lease("key:k", "spending", 1) is None  # 50 + 60 > 100
    held()
    assert alive.renew() == 0
    assert SqlAccessCounters(second, clock=at(100)).lease("key:k", "spending", 1) is not None


def test_the_minute_slides_and_retry_after_says_when_one_fits(database: Database) -> None:
    def admit(seconds: float) -> int:
        return SqlAccessCounters(database, clock=at(seconds)).admit("key:k", "page", 2)

    assert [admit(20), admit(20)] == [0, 0]
    assert admit(20) == 40  # this minute is full: wait for the next
    # 30 s into the next minute the last one still weighs 2 x 0.5: one place of two
    assert [admit(60 + 30), admit(60 + 30)] == [0, 1]
    assert admit(60 + 31) == 0  # 2 x 29/60 < 1: a second place
    assert admit(60 + 40) == 20  # this minute holds two: wait for the next
    assert admit(120 + 31) == 0
