"""The verdict ledger on a real SQLite file: append, verify, tampering named, concurrent writers."""

from __future__ import annotations

import multiprocessing
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import text

from stockdesk.ledger.application import (
    GENESIS,
    LedgerService,
    VerdictRecord,
    canonical_json,
    inputs_hash,
    is_retrospective,
    sha256_hex,
)
from stockdesk.ledger.infrastructure.persistence.ledger_store import SqlLedgerStore
from stockdesk.shared.db import Database


def record(
    entry_id: str, *, as_of: date = date(2020, 1, 10), action: str = "HOLD", **changes: object
) -> VerdictRecord:
    base = dict(
        entry_id=entry_id,
        symbol="000338.SZ",
        as_of=as_of,
        mode="rules",
        model="rules",
        action=action,
        confidence=0.54,
        verdict={"action": action, "confidence": 0.54, "reasoning": "规则裁决"},
        experts={"technical_analyst": {"stance": "neutral", "confidence": 0.42}},
        inputs_hash=inputs_hash({"technical_analyst": {"close": 14.94}}, {}, "rules", None),
    )
    return VerdictRecord.model_validate({**base, **changes})


def service(database: Database, clock: datetime | None = None) -> LedgerService:
    moment = clock or datetime(2026, 11, 28, 5, 0, 0, 123456, tzinfo=UTC)
    return LedgerService(SqlLedgerStore(database), clock=lambda: moment)


def test_appends_form_one_chain_that_verifies(database: Database) -> None:
    ledger = service(database)
    entries = [ledger.append(record(f"s{i}")) for i in range(3)]
    assert [e.seq for e in entries] == [1, 2, 3]
    assert entries[0].prev_hash == GENESIS
    assert [e.prev_hash for e in entries[1:]] == [e.entry_hash for e in entries[:-1]]
    check = ledger.verify()
    assert check.ok and check.entries == 3 and check.head_hash == entries[-1].entry_hash
    assert check.line().startswith("ledger ok: 3 entries")
    stored = ledger.entries()
    assert stored == entries  # read back exactly as sealed (created_at in UTC, floats, JSON text)


def test_the_verdict_is_stored_as_canonical_json(database: Database) -> None:
    entry = service(database).append(record("s1"))
    assert entry.verdict_json == '{"action":"HOLD","confidence":0.54,"reasoning":"规则裁决"}'
    assert canonical_json({"b": 1, "a": [1.5, float("nan")]}) == '{"a":[1.5,null],"b":1}'


def test_appending_the_same_entry_again_appends_nothing(database: Database) -> None:
    ledger = service(database)
    first = ledger.append(record("s1"))
    again = ledger.append(record("s1", action="BUY"))
    assert again == first and len(ledger.entries()) == 1


def test_an_edited_verdict_is_detected_naming_the_entry(database: Database) -> None:
    ledger = service(database)
    for i in range(4):
        ledger.append(record(f"s{i}"))
    with database.engine.begin() as conn:
        conn.execute(
            text(
                "UPDATE verdict_ledger SET verdict_json = replace(verdict_json, 'HOLD', 'BUY') WHERE seq = 2"
            )
        )
    check = ledger.verify()
    assert not check.ok and check.entries == 1
    assert check.first_bad is not None and (check.first_bad.seq, check.first_bad.entry_id) == (2, "s1")
    assert "edited" in check.line() and "seq 2 (entry s1)" in check.line()


def test_an_edited_hash_column_is_detected_too(database: Database) -> None:
    ledger = service(database)
    for i in range(3):
        ledger.append(record(f"s{i}"))
    with database.engine.begin() as conn:
        conn.execute(text("UPDATE verdict_ledger SET probability_up = 0.9 WHERE seq = 3"))
    bad = ledger.verify().first_bad
    assert bad is not None and bad.seq == 3


def test_a_deleted_entry_is_detected_at_the_entry_after_it(database: Database) -> None:
    ledger = service(database)
    for i in range(4):
        ledger.append(record(f"s{i}"))
    with database.engine.begin() as conn:
        conn.execute(text("DELETE FROM verdict_ledger WHERE seq = 2"))
    check = ledger.verify()
    assert check.first_bad is not None and (check.first_bad.seq, check.first_bad.entry_id) == (3, "s2")
    assert "seq 2 is missing" in check.first_bad.problem


def test_a_deleted_then_renumbered_entry_breaks_prev_hash(database: Database) -> None:
    ledger = service(database)
    for i in range(3):
        ledger.append(record(f"s{i}"))
    with database.engine.begin() as conn:
        conn.execute(text("DELETE FROM verdict_ledger WHERE seq = 2"))
        conn.execute(text("UPDATE verdict_ledger SET seq = 2 WHERE seq = 3"))
    bad = ledger.verify().first_bad
    assert bad is not None and bad.entry_id == "s2" and "prev_hash" in bad.problem


def test_an_empty_ledger_verifies() -> None:
    from stockdesk.ledger.domain.chain import verify_chain

    assert verify_chain([]).line() == f"ledger ok: 0 entries, head {GENESIS}"


@pytest.mark.parametrize(
    ("as_of", "created", "retro"),
    [
        (date(2020, 1, 10), datetime(2026, 11, 28, tzinfo=UTC), True),
        (date(2026, 11, 27), datetime(2026, 11, 28, tzinfo=UTC), False),  # Friday close, Saturday run
        (date(2026, 11, 24), datetime(2026, 11, 28, 23, 59, tzinfo=UTC), False),  # 4 days: live
        (date(2026, 11, 23), datetime(2026, 11, 28, 0, 1, tzinfo=UTC), True),  # 5 days: retrospective
    ],
)
def test_retrospective_means_more_than_four_calendar_days(
    as_of: date, created: datetime, retro: bool
) -> None:
    assert is_retrospective(as_of, created) is retro


def test_entries_are_marked_retrospective_when_appended(database: Database) -> None:
    today = datetime(2026, 11, 28, 5, tzinfo=UTC)
    ledger = service(database, today)
    old = ledger.append(record("old", as_of=date(2020, 1, 10)))
    live = ledger.append(record("live", as_of=(today - timedelta(days=1)).date()))
    assert old.retrospective and not live.retrospective


def test_the_inputs_hash_follows_the_inputs() -> None:
    one = inputs_hash({"v": {"pe": 10.0}}, {"v": "abc"}, "m", 42)
    assert one == inputs_hash({"v": {"pe": 10.0}}, {"v": "abc"}, "m", 42)
    assert one != inputs_hash({"v": {"pe": 10.0}}, {"v": "abc"}, "m", 43)
    assert one != inputs_hash({"v": {"pe": 10.5}}, {"v": "abc"}, "m", 42)


def _writer(url: str, worker: int, count: int) -> None:
    database = Database(url)
    ledger = LedgerService(SqlLedgerStore(database))
    for i in range(count):
        ledger.append(record(f"w{worker}-{i}"))
    database.dispose()


def test_concurrent_appends_from_several_processes_keep_one_chain(database: Database) -> None:
    database.upgrade()
    workers, each = 4, 15
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=_writer, args=(database.url, w, each)) for w in range(workers)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
        assert process.exitcode == 0
    ledger = service(database)
    entries = ledger.entries()
    assert [e.seq for e in entries] == list(range(1, workers * each + 1))
    assert {e.entry_id for e in entries} == {f"w{w}-{i}" for w in range(workers) for i in range(each)}
    assert ledger.verify().ok


def test_facts_are_the_entries_without_their_verdict_text(database: Database) -> None:
    ledger = service(database)
    entry = ledger.append(record("s1", probability_up=0.61))
    [facts] = ledger.facts()
    assert facts.model_dump() == entry.model_dump(
        exclude={"verdict_json", "inputs_hash", "prev_hash", "entry_hash"}
    )


def test_fact_columns_are_the_facts_column_by_column(database: Database) -> None:
    ledger = service(database)
    assert ledger.fact_columns().seq == []
    ledger.append(record("s1", probability_up=0.61))
    ledger.append(record("s2"))
    columns, facts = ledger.fact_columns(), ledger.facts()
    for name in type(columns).model_fields:
        assert getattr(columns, name) == [getattr(f, name) for f in facts], name


def test_the_entry_hash_is_sha256_of_prev_hash_and_the_canonical_json_of_the_other_columns(
    database: Database,
) -> None:
    ledger = service(database)
    ledger.append(record("s1"))
    entry = ledger.append(record("s2", probability_up=0.5))
    columns = entry.model_dump(exclude={"entry_hash", "prev_hash"})
    columns["created_at"] = "2026-11-28T05:00:00.123456+00:00"
    expected = sha256_hex(entry.prev_hash + canonical_json(columns))
    assert entry.entry_hash == expected
