"""The job/task system: idempotent jobs and tasks, claiming, retries, batch failures, Ctrl-C."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from stockdesk.shared.db import Database
from stockdesk.shared.db.task_store import SqlTaskStore
from stockdesk.shared.tasks import (
    JobStatus,
    TaskCounts,
    TaskStatus,
    canonical_json,
    config_hash,
    error_line,
    jsonable,
    plain_json,
    run_tasks,
)

KEYS = [f"k{i:02d}" for i in range(10)]


@pytest.fixture
def store(database: Database) -> SqlTaskStore:
    return SqlTaskStore(database)


def new_job(store: SqlTaskStore, keys: list[str] = KEYS, kind: str = "test") -> str:
    job, _ = store.open_job(kind, config_hash({"keys": keys}), {"keys": keys})
    store.add_tasks(job.id, keys)
    return job.id


def echo(keys: list[str]) -> dict[str, Any]:
    return {key: {"key": key} for key in keys}


# --- canonical JSON and the config hash -------------------------------------------------------


class Colour(StrEnum):
    RED = "red"


def test_config_hash_ignores_key_order_and_writes_dates_as_iso() -> None:
    a = {"start": date(2024, 1, 2), "symbols": ["AAPL", "MSFT"], "opts": {"x": 1, "y": 2.5}}
    b = {"opts": {"y": 2.5, "x": 1}, "symbols": ["AAPL", "MSFT"], "start": date(2024, 1, 2)}
    assert config_hash(a) == config_hash(b)
    assert len(config_hash(a)) == 64
    assert config_hash(a) == config_hash({**a, "start": "2024-01-02"})
    assert config_hash(a) != config_hash({**a, "symbols": ["MSFT", "AAPL"]})
    assert config_hash(a) != config_hash({**a, "opts": {"x": 1, "y": 2.6}})
    assert canonical_json({"b": 1, "a": date(2024, 1, 2)}) == '{"a":"2024-01-02","b":1}'


def test_jsonable_converts_what_results_and_configs_carry() -> None:
    value = {
        "when": datetime(2024, 1, 2, 3, 4, 5),
        "colour": Colour.RED,
        "tags": {"b", "a"},
        "price": Decimal("1.50"),
        "np_float": np.float64(0.25),
        "np_int": np.int64(7),
        "array": np.array([1, 2]),
        "nan": math.nan,
        date(2024, 1, 2): (1, 2),
    }
    assert jsonable(value) == {
        "when": "2024-01-02T03:04:05",
        "colour": "red",
        "tags": ["a", "b"],
        "price": "1.50",
        "np_float": 0.25,
        "np_int": 7,
        "array": [1, 2],
        "nan": None,
        "2024-01-02": [1, 2],
    }
    with pytest.raises(TypeError):
        jsonable({"x": object()})


PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)
    | st.sampled_from([Colour.RED, date(2024, 1, 2), np.float64(0.5), np.int64(3)]),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=4) | st.integers() | st.booleans(), inner, max_size=4),
    max_leaves=20,
)  # fmt: skip


@given(PLAIN)
def test_the_fast_round_trip_gives_what_the_walk_gives(value: Any) -> None:
    assert plain_json(value) == jsonable(value)


def test_error_line_is_one_line_with_the_exception_type() -> None:
    assert error_line(ValueError("bad\n  value")) == "ValueError: bad value"
    assert error_line(KeyError()) == "KeyError"


# --- the store --------------------------------------------------------------------------------


def test_open_job_is_idempotent_per_kind_and_config(store: SqlTaskStore) -> None:
    config = {"symbols": ["AAPL"], "start": date(2024, 1, 2)}
    job, created = store.open_job("evaluate", config_hash(config), config)
    assert created and job.status == JobStatus.PENDING
    assert job.config == {"symbols": ["AAPL"], "start": "2024-01-02"}
    again, created_again = store.open_job("evaluate", config_hash(config), config)
    assert not created_again and again.id == job.id
    other, created_other = store.open_job("briefing", config_hash(config), config)
    assert created_other and other.id != job.id
    assert [j.id for j in store.list_jobs(kind="evaluate")] == [job.id]
    assert {j.id for j in store.list_jobs()} == {job.id, other.id}
    assert store.get_job(job.id) == again
    assert store.get_job("nope") is None


def test_add_tasks_inserts_only_missing_keys(store: SqlTaskStore) -> None:
    job, _ = store.open_job("test", "h", {})
    assert store.add_tasks(job.id, ["b", "a", "b"]) == 2
    store.mark_running(job.id, ["a"])
    store.complete(job.id, {"a": {"v": 1}})
    assert store.add_tasks(job.id, ["a", "b", "c"]) == 1
    assert store.counts(job.id) == TaskCounts(pending=2, done=1, total=3)
    done = store.tasks(job.id, TaskStatus.DONE)
    assert [(t.key, t.attempts, t.result) for t in done] == [("a", 1, {"v": 1})]  # untouched by re-adding
    with pytest.raises(KeyError):
        store.add_tasks("missing-job", ["x"])
    with pytest.raises(ValueError):
        store.add_tasks(job.id, [""])


def test_claimable_is_pending_plus_retriable_failed_in_key_order(store: SqlTaskStore) -> None:
    job_id = new_job(store, ["c", "a", "d", "b", "e"])
    assert [t.key for t in store.claimable(job_id, max_attempts=2)] == ["a", "b", "c", "d", "e"]
    assert [t.key for t in store.claimable(job_id, max_attempts=2, limit=2)] == ["a", "b"]
    store.mark_running(job_id, ["a", "b", "c"])
    store.complete(job_id, {"a": {}})
    store.fail(job_id, {"b": "ValueError: once"})
    assert [t.key for t in store.claimable(job_id, max_attempts=2)] == ["b", "d", "e"]  # c is running
    store.mark_running(job_id, ["b"])
    store.fail(job_id, {"b": "ValueError: twice"})
    b = store.tasks(job_id, TaskStatus.FAILED)[0]
    assert (b.key, b.attempts, b.error) == ("b", 2, "ValueError: twice")
    assert [t.key for t in store.claimable(job_id, max_attempts=2)] == ["d", "e"]  # b exhausted
    assert [t.key for t in store.claimable(job_id, max_attempts=3)] == ["b", "d", "e"]
    assert store.counts(job_id) == TaskCounts(pending=2, running=1, done=1, failed=1, total=5)


def test_reopening_a_job_recovers_tasks_left_running(store: SqlTaskStore) -> None:
    job_id = new_job(store, ["a", "b"])
    store.set_job_status(job_id, JobStatus.RUNNING)
    store.mark_running(job_id, ["a", "b"])
    store.complete(job_id, {"a": {}})
    job, created = store.open_job("test", config_hash({"keys": ["a", "b"]}), {})
    assert not created and job.id == job_id and job.status == JobStatus.INTERRUPTED
    b = store.tasks(job_id, TaskStatus.PENDING)
    assert [(t.key, t.attempts) for t in b] == [("b", 0)]  # the interrupted attempt is not counted
    assert store.tasks(job_id, TaskStatus.DONE)[0].attempts == 1


def test_results_round_trip_as_json(store: SqlTaskStore) -> None:
    job_id = new_job(store, ["a", "b"])
    result = {"score": 0.125, "n": 3, "ok": True, "none": None, "text": "买入 ✓", "nested": {"xs": [1, 2.5]}}

    def work(keys: list[str]) -> dict[str, Any]:
        return {"a": result, "b": {"day": date(2024, 1, 2), "value": np.float64(1.5)}}

    assert run_tasks(store, job_id, work) == TaskCounts(done=2, total=2)
    a, b = store.tasks(job_id)
    assert a.result == result
    assert b.result == {"day": "2024-01-02", "value": 1.5}
    assert a.error is None and a.attempts == 1


# --- the runner -------------------------------------------------------------------------------


def test_runner_completes_every_task_in_batches_and_reports_progress(store: SqlTaskStore) -> None:
    job_id = new_job(store)
    batches: list[list[str]] = []
    progress: list[tuple[int, int]] = []

    def work(keys: list[str]) -> dict[str, Any]:
        batches.append(keys)
        return echo(keys)

    counts = run_tasks(store, job_id, work, batch_size=4, on_progress=lambda d, t: progress.append((d, t)))
    assert counts == TaskCounts(done=10, total=10)
    assert batches == [KEYS[0:4], KEYS[4:8], KEYS[8:10]]
    assert progress == [(4, 10), (8, 10), (10, 10)]
    assert store.get_job(job_id).status == JobStatus.DONE  # type: ignore[union-attr]
    assert all(t.result == {"key": t.key} for t in store.tasks(job_id))
    # a finished job is never recomputed
    assert run_tasks(store, job_id, lambda keys: pytest.fail("recomputed")) == counts


def test_failed_tasks_are_retried_up_to_max_attempts_then_reported(store: SqlTaskStore) -> None:
    job_id = new_job(store, ["flaky", "good", "poison"])
    calls: dict[str, int] = {}

    def work(keys: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in keys:
            calls[key] = calls.get(key, 0) + 1
            if key == "poison" or (key == "flaky" and calls[key] == 1):
                out[key] = RuntimeError(f"{key} broke")
            else:
                out[key] = {"ok": key}
        return out

    counts = run_tasks(store, job_id, work, batch_size=10, max_attempts=3)
    assert counts == TaskCounts(done=2, failed=1, total=3)
    assert calls == {"flaky": 2, "good": 1, "poison": 3}
    (poison,) = store.tasks(job_id, TaskStatus.FAILED)
    assert (poison.key, poison.attempts, poison.error) == ("poison", 3, "RuntimeError: poison broke")
    job = store.get_job(job_id)
    assert job is not None and job.status == JobStatus.FAILED
    assert job.error == "1 of 3 tasks failed after 3 attempts"
    assert store.tasks(job_id, TaskStatus.DONE)[0].attempts == 2  # flaky
    # the same limit again: nothing to do, still reported
    assert run_tasks(store, job_id, work, max_attempts=3) == counts
    assert calls["poison"] == 3
    # a higher limit retries the exhausted task
    run_tasks(store, job_id, work, max_attempts=4)
    assert calls["poison"] == 4


def test_a_job_kind_words_its_failure_in_the_same_write_as_the_failed_status(store: SqlTaskStore) -> None:
    """The cause is written with the status: a poller never sees "failed" with the runner's count."""
    job_id = new_job(store, ["good", "poison"])
    seen: list[tuple[str, str | None]] = []
    original = store.set_job_status

    def spy(job: str, status: JobStatus, error: str | None = None) -> None:
        seen.append((status.value, error))
        original(job, status, error)

    store.set_job_status = spy  # type: ignore[method-assign]
    work = lambda keys: {k: RuntimeError("no JSON") if k == "poison" else {"ok": k} for k in keys}  # noqa: E731
    run_tasks(store, job_id, work, max_attempts=1, failure_words=lambda failed: f"{failed[0].key}: broke")
    assert [s for s in seen if s[0] == JobStatus.FAILED.value] == [("failed", "poison: broke")]

    other = new_job(store, ["poison"], kind="other")
    run_tasks(store, other, work, max_attempts=1, failure_words=lambda failed: None)
    job = store.get_job(other)
    assert job is not None and job.error == "1 of 1 tasks failed after 1 attempts"  # None keeps the count


def test_a_worker_raising_fails_its_whole_batch(store: SqlTaskStore) -> None:
    job_id = new_job(store)

    def work(keys: list[str]) -> dict[str, Any]:
        if "k05" in keys:
            raise ValueError("market data\nunavailable")
        return echo(keys)

    counts = run_tasks(store, job_id, work, batch_size=3, max_attempts=2)
    assert counts == TaskCounts(done=7, failed=3, total=10)
    failed = store.tasks(job_id, TaskStatus.FAILED)
    assert [t.key for t in failed] == ["k03", "k04", "k05"]
    assert {(t.error, t.attempts) for t in failed} == {("ValueError: market data unavailable", 2)}
    assert store.get_job(job_id).status == JobStatus.FAILED  # type: ignore[union-attr]


def test_missing_or_unserialisable_results_fail_only_their_task(store: SqlTaskStore) -> None:
    job_id = new_job(store, ["a", "b", "c", "d"])

    def work(keys: list[str]) -> Mapping[str, Any]:
        return {"a": {"ok": 1}, "c": {"bad": object()}, "d": [1, 2]}

    assert run_tasks(store, job_id, work, max_attempts=1) == TaskCounts(done=1, failed=3, total=4)
    errors = {t.key: t.error for t in store.tasks(job_id, TaskStatus.FAILED)}
    assert errors["b"].startswith("MissingResult")  # type: ignore[union-attr]
    assert errors["c"] == "TypeError: object is not JSON-serializable"
    assert errors["d"] == "TypeError: the worker returned list, not a dict"


def test_keyboard_interrupt_puts_the_batch_back_and_marks_the_job_interrupted(store: SqlTaskStore) -> None:
    job_id = new_job(store)
    seen: list[str] = []

    def work(keys: list[str]) -> dict[str, Any]:
        if "k04" in keys:
            raise KeyboardInterrupt
        seen.extend(keys)
        return echo(keys)

    with pytest.raises(KeyboardInterrupt):
        run_tasks(store, job_id, work, batch_size=4)
    job = store.get_job(job_id)
    assert job is not None and job.status == JobStatus.INTERRUPTED
    assert store.counts(job_id) == TaskCounts(pending=6, done=4, total=10)
    assert {t.attempts for t in store.tasks(job_id, TaskStatus.PENDING)} == {0}
    # resuming runs only what was not done
    counts = run_tasks(store, job_id, lambda keys: seen.extend(keys) or echo(keys), batch_size=4)
    assert counts == TaskCounts(done=10, total=10)
    assert sorted(seen) == KEYS and len(seen) == 10
    assert store.get_job(job_id).status == JobStatus.DONE  # type: ignore[union-attr]


def test_a_store_failure_marks_the_job_failed_and_propagates(store: SqlTaskStore) -> None:
    job_id = new_job(store, ["a", "b"])

    def progress(done: int, total: int) -> None:
        raise OSError("disk full")

    with pytest.raises(OSError):
        run_tasks(store, job_id, echo, batch_size=1, on_progress=progress)
    job = store.get_job(job_id)
    assert job is not None and (job.status, job.error) == (JobStatus.FAILED, "OSError: disk full")
    assert store.counts(job_id) == TaskCounts(pending=1, done=1, total=2)


def test_a_job_without_tasks_is_done(store: SqlTaskStore) -> None:
    job, _ = store.open_job("test", "empty", {})
    assert run_tasks(store, job.id, echo) == TaskCounts()
    assert store.get_job(job.id).status == JobStatus.DONE  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        run_tasks(store, job.id, echo, max_attempts=0)
    with pytest.raises(KeyError):
        run_tasks(store, "missing", echo)
