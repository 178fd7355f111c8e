"""A desk with a schedule and real finished runs, for the schedules pages' tests: the hand-built
A-share store of tests/scheduling/market.py (weekday bars to 2020-06-16), a watchlist of its three
names, two webhook channels on a real local receiver (`up` answers 200, `down` 503, one attempt each,
so three runs make `down` failing) and a rules-mode schedule (no LLM) run on the given days."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.scheduling import scheduling_of
from stockdesk.scheduling.application import RunStatus
from tests.notifications.receiver import Receiver, receiver
from tests.notifications.support import write_config
from tests.scheduling.market import SYMBOLS, populate

NAME = "desk"
DAY = date(2020, 6, 16)  # a Tuesday with bars
EARLIER = (date(2020, 6, 12), date(2020, 6, 15))


@dataclass
class Desk:
    app: AppContainer
    hook: Receiver
    home: Path


CONFIG = """
[notify]
attempts = 1
backoff_seconds = 0

[notify.channels.up]
type = "webhook"
url_env = "UP_HOOK_URL"

[notify.channels.down]
type = "webhook"
url_env = "DOWN_HOOK_URL"
"""


@contextmanager
def desk_with_runs(
    home: Path, monkeypatch: pytest.MonkeyPatch, days: tuple[date, ...] = (*EARLIER, DAY)
) -> Iterator[Desk]:
    with receiver() as hook:
        hook.default["/up"] = (200, "{}")
        hook.default["/down"] = (503, '{"error": "down"}')
        monkeypatch.setenv("UP_HOOK_URL", f"{hook.base}/up")
        monkeypatch.setenv("DOWN_HOOK_URL", f"{hook.base}/down")
        app = AppContainer(write_config(home.parent, monkeypatch, CONFIG))
        populate(app.database)
        app.portfolio.watchlists.add("core", list(SYMBOLS))
        scheduling = scheduling_of(app)
        scheduling.schedules.add(
            NAME, watchlist="core", at="16:30", tz="Asia/Shanghai", notify=["up", "down"]
        )
        for day in days:
            fired = scheduling.runs.run_now(NAME, day)
            assert fired.run is not None and fired.run.status is RunStatus.DONE, fired
        try:
            yield Desk(app, hook, home)
        finally:
            app.close()
