"""The cron expression and the next fire in each schedule's zone (DST in New York), and the one-line
refusals of `schedule add` (exit 2) and of POST /api/v1/schedules (400/404/409 with their codes)."""

from __future__ import annotations

import time
from datetime import UTC, date, datetime

import pytest
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.entrypoints.container import AppContainer
from stockdesk.scheduling.domain.timing import cron_expression, fires_between, next_fire
from stockdesk.shared.config import Settings
from stockdesk.shared.errors import StockdeskError
from tests.api_support import api_client
from tests.scheduling.market import SYMBOLS, populate


def test_the_cron_expression_of_at_and_days() -> None:
    assert cron_expression("16:30", "mon-fri") == "30 16 * * mon-fri"
    assert cron_expression("9:05", "mon,wed,fri") == "5 9 * * mon,wed,fri"
    assert cron_expression("00:00", "daily") == "0 0 * * *"


def test_the_next_fire_in_shanghai_skips_the_weekend() -> None:
    friday_evening = datetime(2020, 6, 12, 9, 0, tzinfo=UTC)  # 17:00 in Shanghai, after the fire
    fire = next_fire("16:30", "mon-fri", "Asia/Shanghai", friday_evening)
    assert fire.isoformat() == "2020-06-15T16:30:00+08:00"
    assert fire.astimezone(UTC).isoformat() == "2020-06-15T08:30:00+00:00"
    just_before = datetime.fromisoformat("2020-06-16T16:29:00+08:00")
    assert (
        next_fire("16:30", "mon-fri", "Asia/Shanghai", just_before).isoformat() == "2020-06-16T16:30:00+08:00"
    )


def test_new_york_keeps_its_wall_clock_across_daylight_saving() -> None:
    winter = next_fire("16:30", "mon-fri", "America/New_York", datetime(2026, 3, 6, 12, tzinfo=UTC))
    summer = next_fire("16:30", "mon-fri", "America/New_York", datetime(2026, 3, 9, 12, tzinfo=UTC))
    assert winter.astimezone(UTC).isoformat() == "2026-03-06T21:30:00+00:00"  # EST, UTC-5
    assert summer.astimezone(UTC).isoformat() == "2026-03-09T20:30:00+00:00"  # EDT, UTC-4
    gap = next_fire("02:30", "daily", "America/New_York", datetime(2026, 3, 8, 5, tzinfo=UTC))
    assert gap.isoformat() == "2026-03-08T03:00:00-04:00"  # 02:30 does not exist that night
    # 01:30 comes twice when the clocks fall back: two fire times, one local day (one run: the claim)
    twice = fires_between(
        "01:30",
        "daily",
        "America/New_York",
        datetime(2026, 11, 1, 4, tzinfo=UTC),
        datetime(2026, 11, 1, 8, tzinfo=UTC),
    )
    assert [f.isoformat() for f in twice] == ["2026-11-01T01:30:00-04:00", "2026-11-01T01:30:00-05:00"]
    assert {f.date() for f in twice} == {twice[0].date()}


@pytest.fixture
def app(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> AppContainer:
    container = AppContainer(settings)
    populate(container.database)
    container.portfolio.watchlists.add("core", list(SYMBOLS))
    monkeypatch.setattr(entry, "_container", container)
    return container


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--watchlist", "nope", "--at", "16:30", "--tz", "Asia/Shanghai"], "no watchlist named 'nope'"),
        (
            ["--watchlist", "core", "--at", "24:00", "--tz", "Asia/Shanghai"],
            "--at '24:00' is not a time of day",
        ),
        (
            ["--watchlist", "core", "--at", "16:30", "--tz", "Asia/Shangai"],
            "--tz 'Asia/Shangai' is not a known",
        ),
        (["--watchlist", "core", "--at", "16:30", "--tz", "UTC", "--days", "weekdays"], "--days 'weekdays'"),
        (
            ["--watchlist", "core", "--at", "16:30", "--tz", "UTC", "--notify", "pager"],
            "unknown notification channel pager",
        ),
        (
            ["--watchlist", "core", "--at", "16:30", "--tz", "UTC", "--mode", "llm"],
            "--mode 'llm' is not one of",
        ),
        (
            ["--watchlist", "core", "--at", "16:30", "--tz", "UTC", "--paper", "book"],
            "no paper book named 'book'",
        ),
        (
            ["--watchlist", "core", "--at", "16:30", "--tz", "UTC", "--lang", "fr"],
            "--lang 'fr' is not one of",
        ),
    ],
)
def test_schedule_add_refuses_in_one_line_with_exit_2(app: AppContainer, args: list[str], words: str) -> None:
    result = CliRunner().invoke(entry.app, ["schedule", "add", "desk", *args])
    error = result.exception
    assert isinstance(error, StockdeskError) and error.exit_code == 2, result.output  # main(): exit 2
    assert words in str(result.exception), result.exception
    assert "\n" not in str(result.exception)


def test_rest_codes(app: AppContainer) -> None:
    client = api_client(app)
    body = {"name": "desk", "watchlist": "core", "at": "16:30", "tz": "Asia/Shanghai", "notify": []}
    assert client.post("/api/v1/schedules", json=body).status_code == 201
    again = client.post("/api/v1/schedules", json=body)
    assert (again.status_code, again.json()["error"]["code"]) == (409, "SCHEDULE_EXISTS")
    bad = client.post("/api/v1/schedules", json={**body, "name": "x", "tz": "Nowhere/City"})
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "BAD_TIMEZONE")
    unknown = client.post("/api/v1/schedules", json={**body, "name": "y", "watchlist": "none"})
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (400, "UNKNOWN_WATCHLIST")
    (listed,) = client.get("/api/v1/schedules").json()
    assert listed["next_fire"].endswith("16:30:00+08:00") and listed["last_run"] is None
    skipped = client.post("/api/v1/schedules/desk/run", params={"as_of": "2020-06-13"})
    assert skipped.status_code == 200 and skipped.json()["run"]["status"] == "skipped"
    twice = client.post("/api/v1/schedules/desk/run", params={"as_of": "2020-06-13"})
    assert (twice.status_code, twice.json()["error"]["code"]) == (409, "SCHEDULE_RUN_EXISTS")
    started = client.post("/api/v1/schedules/desk/run", params={"as_of": "2020-06-16"})
    assert started.status_code == 202 and started.json()["run"]["status"] in ("claimed", "running"), (
        started.text
    )
    job = started.headers["location"]
    assert job == f"/api/v1/jobs/{started.json()['run']['job_id']}"
    deadline = time.monotonic() + 120
    while client.get(job).json()["status"] not in ("done", "failed", "cancelled"):
        assert time.monotonic() < deadline, client.get(job).json()
        time.sleep(0.3)
    (listed,) = client.get("/api/v1/schedules").json()
    assert (listed["last_run"]["day"], listed["last_run"]["status"]) == ("2020-06-16", "done"), listed
    assert client.delete("/api/v1/schedules/desk").status_code == 204
    gone = client.delete("/api/v1/schedules/desk")
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "SCHEDULE_NOT_FOUND")


def test_a_run_left_claimed_resumes_on_the_server(app: AppContainer) -> None:
    """A day claimed and its job opened but never run (a full queue, a server stopped) is resumed by
    the server's jobs route, not only by `stockdesk jobs resume`."""
    from stockdesk.entrypoints.scheduling import scheduling_of

    client = api_client(app)
    scheduling = scheduling_of(app)
    scheduling.schedules.add("desk", watchlist="core", at="16:30", tz="Asia/Shanghai")
    opened = scheduling.runs.open_now("desk", date(2020, 6, 16))
    assert opened.job_id is not None and opened.status.value == "running" and not opened.rows
    resumed = client.post(f"/api/v1/jobs/{opened.job_id}/resume")
    assert resumed.status_code == 202, resumed.text
    deadline = time.monotonic() + 120
    while client.get(f"/api/v1/jobs/{opened.job_id}").json()["status"] != "done":
        assert time.monotonic() < deadline, client.get(f"/api/v1/jobs/{opened.job_id}").json()
        time.sleep(0.3)
    run = scheduling.store.run("desk", date(2020, 6, 16))
    assert run is not None and run.status.value == "done" and len(run.rows) == len(SYMBOLS)
