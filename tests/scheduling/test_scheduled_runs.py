"""The Done-when of scheduled runs, on a store shaped like the sample's end (weekday bars to 2020-06-16):
a schedule firing right after a pretend clock runs the watchlist, writes the reports and delivers the
digest to a real local SMTP server (aiosmtpd, STARTTLS) and a real local webhook receiver; a second
scheduler process on the same database does not run it again; a day without bars is skipped and
recorded; a failing channel is retried and shown failing in `schedule list`; a run whose process died
is resumed by the next scheduler."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.coordinator.application.day_verdicts import symbol_verdict
from stockdesk.entrypoints.container import AppContainer
from stockdesk.entrypoints.scheduling import scheduling_of
from stockdesk.notifications.application import Digest, digest_text
from stockdesk.scheduling.application import RunStatus, pretend_clock
from stockdesk.scheduling.container import SchedulingContainer
from stockdesk.shared.config import Settings
from tests.notifications.receiver import Receiver, receiver
from tests.notifications.test_email import PASSWORD, Inbox, smtp  # noqa: F401 - the real SMTP fixture
from tests.scheduling.market import NAMES, SYMBOLS, US_NAME, populate, populate_us

HOOK = "/hook/secret-path-77"
TRADING_DAY = date(2020, 6, 16)  # a Tuesday with bars
SATURDAY = date(2020, 6, 13)


def _config(home: Path, port: int, cert: Path, hook_url: str) -> tuple[Path, dict[str, str]]:
    path = home.parent / "stockdesk.toml"
    path.write_text(
        f"""
[notify]
attempts = 2
backoff_seconds = 0

[notify.channels.mail]
type = "email"
host = "127.0.0.1"
port = {port}
username = "desk"
password_env = "SMTP_PASSWORD"
from = "desk@example.org"
to = ["me@example.org"]
ca_file = "{cert}"

[notify.channels.hook]
type = "webhook"
url_env = "HOOK_URL"
""",
        encoding="utf-8",
    )
    return path, {"STOCKDESK_CONFIG": str(path), "SMTP_PASSWORD": PASSWORD, "HOOK_URL": hook_url}


@pytest.fixture
def desk(
    smtp: tuple[Inbox, int, Path],  # noqa: F811
    isolated_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[AppContainer, Inbox, Receiver, dict[str, str]]]:
    inbox, port, cert = smtp
    with receiver() as hook:
        hook.default[HOOK] = (200, "{}")
        _path, env = _config(isolated_home, port, cert, f"{hook.base}{HOOK}")
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        app = AppContainer(Settings())
        populate(app.database)
        app.portfolio.watchlists.add("core", list(SYMBOLS))
        monkeypatch.setattr(entry, "_container", app)
        yield app, inbox, hook, env
        app.close()


def _scheduling(app: AppContainer) -> SchedulingContainer:
    return scheduling_of(app)


def _wait_for(check, seconds: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def test_a_fire_runs_the_watchlist_delivers_once_and_a_second_scheduler_does_not_rerun_it(
    desk: tuple[AppContainer, Inbox, Receiver, dict[str, str]], isolated_home: Path
) -> None:
    app, inbox, hook, env = desk
    scheduling = _scheduling(app)
    scheduling.schedules.add(
        "desk", watchlist="core", at="16:30", tz="Asia/Shanghai", notify=["mail", "hook"]
    )
    pretend = "2020-06-16T16:29:57+08:00"
    other = subprocess.Popen(
        [sys.executable, "-m", "stockdesk", "scheduler", "--pretend-now", pretend, "--poll", "0.5"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, **env, "STOCKDESK_HOME": str(isolated_home), "COLUMNS": "200"},
    )  # fmt: skip
    assert other.stdout is not None
    started = other.stdout.readline()
    assert "scheduler started; clock at 2020-06-16 16:29:5" in started, started
    lines: list[str] = []
    stop = threading.Event()
    loop = scheduling.loop(pretend_clock(datetime.fromisoformat(pretend)), say=lines.append)
    here = threading.Thread(target=loop.run, args=(stop,), kwargs={}, daemon=True)
    here.start()
    try:
        store = scheduling.store
        _wait_for(lambda: (r := store.run("desk", TRADING_DAY)) is not None and r.status is RunStatus.DONE)
        _wait_for(lambda: any("2020-06-16" in line for line in lines))
        time.sleep(2.0)  # both loops are past 16:30: nothing else may happen
    finally:
        stop.set()
        here.join(30)
        other.terminate()
        out, _ = other.communicate(timeout=30)
    theirs = started + out
    assert other.returncode == 0, theirs
    # exactly one of the two ran the day; the other skipped it as claimed
    ran = [text for text in (theirs, "\n".join(lines)) if "2020-06-16: ran 3 symbols" in text]
    skipped = [
        text for text in (theirs, "\n".join(lines)) if "2020-06-16: skipped, already claimed by" in text
    ]
    assert len(ran) == 1 and len(skipped) == 1, (theirs, lines)
    assert "scheduler stopped" in theirs
    runs = scheduling.runs.runs("desk")
    assert [(r.day, r.status) for r in runs] == [(TRADING_DAY, RunStatus.DONE)]
    run = runs[0]
    # the reports: an index and one per symbol, in <home>/reports/schedules/<name>/<day>/
    folder = isolated_home / "reports" / "schedules" / "desk" / "2020-06-16"
    assert run.report_dir == str(folder.resolve())
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["index.html", *(f"{s}-2020-06-16.html" for s in SYMBOLS)]
    )
    # one delivery per channel, recorded on the run
    assert [(d.channel, d.status, d.attempts) for d in run.deliveries] == [
        ("mail", "sent", 1),
        ("hook", "sent", 1),
    ]
    assert len(inbox.messages) == 1 and len(hook.on(HOOK)) == 1
    # the table: every symbol with its name, its action and the day's close from the store
    assert {r.symbol for r in run.rows} == set(SYMBOLS)
    closes = {s: app.data.daily_bars.execute(s, as_of=TRADING_DAY)[-1].close for s in SYMBOLS}
    assert {r.symbol: r.close for r in run.rows} == closes
    message = inbox.messages[0]
    assert message["Subject"] == "desk · core: 2020-06-16"
    plain = message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    for row in run.rows:
        assert row.symbol in plain and NAMES[row.symbol] in plain
    # the changes come first: a first run has no previous table, so each BUY or SELL is new
    moves = [r for r in run.rows if r.action in ("BUY", "SELL")]
    payload = hook.on(HOOK)[0].body["digest"]
    assert payload["as_of"] == "2020-06-16" and len(payload["rows"]) == 3
    assert sorted(c["symbol"] for c in payload["changes"]) == sorted(r.symbol for r in moves)
    assert {c["kind"] for c in payload["changes"]} <= {"new_buy", "new_sell"}
    text = digest_text(Digest.model_validate(payload))
    assert plain.index(text.changes_title) < plain.index(text.table_title)
    for sentence in text.changes:
        assert plain.index(sentence) < plain.index(text.table_title)
    for line in text.row_lines:
        assert line in plain


def test_a_day_without_bars_is_skipped_and_recorded_never_run(
    desk: tuple[AppContainer, Inbox, Receiver, dict[str, str]],
) -> None:
    app, inbox, hook, _env = desk
    scheduling = _scheduling(app)
    scheduling.schedules.add("weekdays", watchlist="core", at="16:30", tz="Asia/Shanghai", notify=["hook"])
    scheduling.schedules.add("daily", watchlist="core", at="16:30", tz="Asia/Shanghai", days="daily")
    lines: list[str] = []
    loop = scheduling.loop(
        pretend_clock(datetime.fromisoformat("2020-06-13T16:29:59+08:00")), say=lines.append
    )
    time.sleep(1.2)
    fired = loop.tick()
    # a mon-fri schedule does not fire on a Saturday at all; the daily one fires and is skipped
    assert [(f.schedule, f.day) for f in fired] == [("daily", SATURDAY)]
    (run,) = scheduling.runs.runs("daily")
    assert run.status is RunStatus.SKIPPED
    assert run.reason == "not a trading day in the store: no bars for 2020-06-13"
    assert run.job_id is None and run.rows == [] and scheduling.runs.runs("weekdays") == []
    assert lines == ["2020-06-13 16:30 +0800 daily 2020-06-13: skipped, not a trading day in the store: "
                     "no bars for 2020-06-13"]  # fmt: skip
    # a weekday after the store's last bars (2020-06-25, the Dragon Boat holiday) is skipped too
    holiday = scheduling.runs.run_now("weekdays", date(2020, 6, 25))
    assert holiday.run is not None and holiday.run.status is RunStatus.SKIPPED
    assert inbox.messages == [] and hook.requests == []
    assert not (app.settings.home / "reports" / "schedules" / "daily").exists()


def test_a_failing_channel_is_retried_and_listed_as_failing(
    desk: tuple[AppContainer, Inbox, Receiver, dict[str, str]],
) -> None:
    app, inbox, hook, _env = desk
    hook.default[HOOK] = (503, '{"error": "down"}')
    scheduling = _scheduling(app)
    scheduling.schedules.add(
        "desk", watchlist="core", at="16:30", tz="Asia/Shanghai", notify=["mail", "hook"]
    )
    for day in (date(2020, 6, 10), date(2020, 6, 11), date(2020, 6, 12)):
        fired = scheduling.runs.run_now("desk", day)
        assert fired.run is not None and fired.run.status is RunStatus.DONE
        by_channel = {d.channel: d for d in fired.run.deliveries}
        assert (by_channel["hook"].status, by_channel["hook"].attempts) == ("failed", 2)
        assert by_channel["mail"].status == "sent"
    assert len(hook.on(HOOK)) == 6  # two attempts each day
    assert len(inbox.messages) == 3
    listed = CliRunner().invoke(entry.app, ["schedule", "list"], env={"COLUMNS": "250"})
    assert listed.exit_code == 0, listed.output
    assert "hook: FAILING (3 failed in a row)" in listed.output and "mail: ok" in listed.output
    assert "2020-06-12 done" in listed.output


def test_a_run_left_by_a_dead_process_is_resumed_once_by_the_next_scheduler(
    desk: tuple[AppContainer, Inbox, Receiver, dict[str, str]],
) -> None:
    app, _inbox, hook, _env = desk
    scheduling = _scheduling(app)
    schedule = scheduling.schedules.add(
        "desk", watchlist="core", at="16:30", tz="Asia/Shanghai", notify=["hook"]
    )
    fired_at = datetime.fromisoformat("2020-06-16T16:30:00+08:00")
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    owner = f"{os.uname().nodename}:{dead.stdout.strip()}"
    claimed = scheduling.store.claim(schedule, TRADING_DAY, fired_at, owner)  # claimed, then the process died
    assert claimed is not None
    loop = scheduling.loop(pretend_clock(datetime.fromisoformat("2020-06-17T09:00:00+08:00")))
    (resumed,) = loop.tick()
    assert resumed.note == "resumed" and resumed.run is not None and resumed.run.status is RunStatus.DONE
    assert loop.tick() == [] and len(hook.on(HOOK)) == 1


def test_a_chinese_schedule_sends_its_digest_in_chinese(
    desk: tuple[AppContainer, Inbox, Receiver, dict[str, str]],
) -> None:
    app, inbox, _hook, _env = desk
    scheduling = _scheduling(app)
    schedule = scheduling.schedules.add(
        "zh-desk", watchlist="core", at="16:30", tz="Asia/Shanghai", notify=["mail"], language="zh"
    )
    stored = scheduling.store.get("zh-desk")
    assert stored is not None and stored.language == schedule.language == "zh"
    fired = scheduling.runs.run_now("zh-desk", TRADING_DAY)
    assert fired.run is not None and fired.run.status is RunStatus.DONE
    (message,) = inbox.messages
    plain = message.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert "全部标的" in plain and NAMES[SYMBOLS[0]] in plain, plain
    assert "All symbols" not in plain


def test_a_held_symbol_is_shown_with_the_holders_action(
    desk: tuple[AppContainer, Inbox, Receiver, dict[str, str]],
) -> None:
    app, _inbox, hook, _env = desk
    for symbol in SYMBOLS:
        app.portfolio.holdings.set(symbol, 1000, 1.0, opened_at=date(2020, 1, 2))
    scheduling = _scheduling(app)
    scheduling.schedules.add("held", watchlist="core", at="16:30", tz="Asia/Shanghai", notify=["hook"])
    fired = scheduling.runs.run_now("held", TRADING_DAY)
    assert fired.run is not None and fired.run.status is RunStatus.DONE
    (request,) = hook.on(HOOK)
    digest = Digest.model_validate(request.body["digest"])
    assert {r.symbol for r in digest.rows} == set(SYMBOLS)
    assert {r.action for r in digest.rows} <= {"ADD", "HOLD", "TRIM", "EXIT"}, digest.rows
    service = app.coordinator.service
    for item in service.list(limit=50).items:
        plan = (service.get(item.id).verdict or {}).get("holder_plan") or {}
        (row,) = [r for r in digest.rows if r.symbol == item.symbol]
        assert row.action == plan.get("action"), (row, plan)
        typed = symbol_verdict(service.get(item.id), TRADING_DAY)  # the row's figures are the verdict's
        assert (row.stop, row.target) == (typed.stop, typed.target)
        assert row.probability == (typed.probability_up if typed.calibrated else None)
        assert row.sample_size == (typed.sample_size if typed.calibrated else None)
    held_turns = {c.symbol for c in digest.changes if c.kind in ("held_trim", "held_exit")}
    assert held_turns == {r.symbol for r in digest.rows if r.action in ("TRIM", "EXIT")}


def test_a_fire_missed_while_no_scheduler_ran_is_caught_up_once_at_start(
    desk: tuple[AppContainer, Inbox, Receiver, dict[str, str]],
) -> None:
    app, _inbox, _hook, _env = desk
    scheduling = _scheduling(app)
    scheduling.schedules.add("desk", watchlist="core", at="16:30", tz="Asia/Shanghai")
    restarted = datetime.fromisoformat("2020-06-16T18:10:00+08:00")  # 1 h 40 min after the fire
    off = scheduling.loop(pretend_clock(restarted), catch_up=timedelta(0))
    assert off.tick() == [] and scheduling.runs.runs("desk") == []  # 0 h: a missed fire stays missed
    lines: list[str] = []
    fired = scheduling.loop(pretend_clock(restarted), say=lines.append).tick()
    assert [(f.schedule, f.day, f.caught_up) for f in fired] == [("desk", TRADING_DAY, True)]
    assert fired[0].run is not None and fired[0].run.status is RunStatus.DONE
    assert lines == [fired[0].line()] and "(missed while no scheduler ran, caught up)" in lines[0]
    assert lines[0].startswith("2020-06-16 16:30 +0800 desk 2020-06-16")
    # a second restart finds the day run: nothing fires, nothing is said
    again: list[str] = []
    assert scheduling.loop(pretend_clock(restarted), say=again.append).tick() == [] and again == []
    # a fire older than the window (16:30 is 7 h 40 min before this start) is not run as news
    late = scheduling.loop(pretend_clock(datetime.fromisoformat("2020-06-17T00:10:00+08:00")))
    scheduling.schedules.add("late", watchlist="core", at="16:30", tz="Asia/Shanghai")
    assert late.tick() == [] and scheduling.runs.runs("late") == []
    assert [r.day for r in scheduling.runs.runs("desk")] == [TRADING_DAY]


def test_a_watchlist_mixing_markets_runs_each_market_on_its_own_trading_days(
    desk: tuple[AppContainer, Inbox, Receiver, dict[str, str]],
) -> None:
    app, _inbox, _hook, _env = desk
    populate_us(app.database, TRADING_DAY - timedelta(days=1))  # the US store ends the day before
    app.portfolio.watchlists.add("mixed", [US_NAME, *SYMBOLS])
    scheduling = _scheduling(app)
    scheduling.schedules.add("mixed", watchlist="mixed", at="16:30", tz="Asia/Shanghai")
    # 2020-06-16: the A-shares traded, the US names have no bar: only the A-shares run, with a note
    fired = scheduling.runs.run_now("mixed", TRADING_DAY)
    assert fired.run is not None and fired.run.status is RunStatus.DONE
    assert sorted(r.symbol for r in fired.run.rows) == sorted(SYMBOLS)
    assert fired.run.notes == ["US not run: no bars for 2020-06-16 (not a trading day there)"]
    # 2020-06-15: both markets traded: every name runs, no note
    both = scheduling.runs.run_now("mixed", TRADING_DAY - timedelta(days=1))
    assert both.run is not None and both.run.status is RunStatus.DONE
    assert sorted(r.symbol for r in both.run.rows) == sorted([US_NAME, *SYMBOLS]) and both.run.notes == []
