"""Route-class limits in process memory: a place in flight is taken before the rate counts, so a
request refused for either reason uses up none of the minute's quota; uploads share one cap per
process whoever sends them."""

from __future__ import annotations

from stockdesk.shared.access.route_limits import ClassLimit, LimitClass, MemoryLimits, Refusal, Release, enter


def ask(limits: MemoryLimits, subject: str, limit_class: LimitClass, limit: ClassLimit) -> Release | Refusal:
    return enter(limits.lease, limits.admit, subject, limit_class, limit)


def test_a_request_refused_for_concurrency_costs_no_rate_quota() -> None:
    limits, limit = MemoryLimits(), ClassLimit(per_minute=2, concurrent=1)
    first = ask(limits, "client:a", LimitClass.PAGE, limit)
    assert not isinstance(first, Refusal)
    for _ in range(5):  # refused while the first is in flight
        busy = ask(limits, "client:a", LimitClass.PAGE, limit)
        assert isinstance(busy, Refusal) and busy.code == "TOO_MANY_CONCURRENT" and busy.retry_after > 0
    first()
    second = ask(limits, "client:a", LimitClass.PAGE, limit)  # the quota's second place: still free
    assert not isinstance(second, Refusal)
    second()
    third = ask(limits, "client:a", LimitClass.PAGE, limit)
    assert isinstance(third, Refusal) and third.code == "RATE_LIMITED" and 1 <= third.retry_after <= 60


def test_a_rate_refusal_gives_its_place_in_flight_back() -> None:
    limits, limit = MemoryLimits(), ClassLimit(per_minute=1, concurrent=1)
    held = ask(limits, "key:k", LimitClass.CHEAP, limit)
    assert not isinstance(held, Refusal)
    held()
    held()  # twice: nothing more is given back
    refused = ask(limits, "key:k", LimitClass.CHEAP, limit)
    assert isinstance(refused, Refusal) and refused.code == "RATE_LIMITED"
    other = ask(limits, "key:k", LimitClass.CHEAP, ClassLimit(per_minute=5, concurrent=1))
    assert not isinstance(other, Refusal)  # the place refused above is free again


def test_subjects_and_classes_are_counted_apart() -> None:
    limits, limit = MemoryLimits(), ClassLimit(per_minute=1, concurrent=1)
    assert not isinstance(ask(limits, "client:a", LimitClass.PAGE, limit), Refusal)
    assert not isinstance(ask(limits, "client:b", LimitClass.PAGE, limit), Refusal)
    assert not isinstance(ask(limits, "client:a", LimitClass.CHEAP, limit), Refusal)
    assert isinstance(ask(limits, "client:a", LimitClass.PAGE, limit), Refusal)


def test_uploads_share_one_cap_per_process_whoever_sends_them() -> None:
    limits = MemoryLimits()
    limit = ClassLimit(per_minute=10, concurrent=2, per_process=True)
    held = [ask(limits, f"client:{n}", LimitClass.UPLOAD, limit) for n in range(2)]
    assert not any(isinstance(h, Refusal) for h in held)
    third = ask(limits, "client:other", LimitClass.UPLOAD, limit)
    assert isinstance(third, Refusal) and third.code == "UPLOADS_BUSY" and third.details == {"max": 2}
    held[0]()  # type: ignore[operator]
    assert not isinstance(ask(limits, "client:other", LimitClass.UPLOAD, limit), Refusal)
