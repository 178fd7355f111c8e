"""What stockdesk creates is the user's alone: its home, the store and the logs 0700/0600 (the probe
found the database and the logs world-readable), and so are the reports it writes."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

from stockdesk.coordinator.presentation.reports.render import write_report
from stockdesk.shared.db import Database
from stockdesk.shared.files import write_atomic
from stockdesk.shared.logging import PrivateRotatingFileHandler
from tests.coordinator.test_reports import full_session


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_fresh_home_its_store_and_its_logs_are_private_under_a_loose_umask(tmp_path: Path) -> None:
    """The real command in a process whose umask (0o000) would leave everything world-writable."""
    home = tmp_path / "a" / "home"
    env = {**os.environ, "STOCKDESK_HOME": str(home)}
    script = (
        "import os, sys; os.umask(0); from stockdesk.entrypoints.cli import main; "
        "sys.argv[1:] = ['db', 'upgrade']; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert mode(home) == 0o700 and mode(home.parent) == 0o700  # created by it, parents too
    assert mode(home / "stockdesk.db") == 0o600
    assert mode(home / "logs") == 0o700 and mode(home / "logs" / "stockdesk.log") == 0o600
    for extra in home.glob("stockdesk.db-*"):  # SQLite's journal or WAL copy the database's mode
        assert mode(extra) == 0o600, extra


def test_the_store_a_process_opens_is_created_private(tmp_path: Path) -> None:
    path = tmp_path / "store" / "nested" / "desk.db"
    database = Database(f"sqlite:///{path}")
    database.ensure_schema()
    database.dispose()
    assert mode(path) == 0o600 and mode(path.parent) == 0o700 and mode(path.parent.parent) == 0o700


def test_an_existing_folder_and_database_keep_their_modes(tmp_path: Path) -> None:
    """Only what stockdesk creates is made private: a folder the user made is theirs to set."""
    tmp_path.chmod(0o755)
    path = tmp_path / "desk.db"
    path.touch(mode=0o640)
    path.chmod(0o640)
    Database(f"sqlite:///{path}").dispose()
    assert mode(tmp_path) == 0o755 and mode(path) == 0o640


def test_every_log_file_a_rotation_starts_is_private(tmp_path: Path) -> None:
    handler = PrivateRotatingFileHandler(tmp_path / "desk.log", maxBytes=200, backupCount=2)
    record = logging.LogRecord("stockdesk", logging.INFO, __file__, 1, "x" * 120, None, None)
    for _ in range(5):
        handler.emit(record)
    handler.close()
    files = sorted(tmp_path.glob("desk.log*"))
    assert [f.name for f in files] == ["desk.log", "desk.log.1", "desk.log.2"]
    assert all(mode(f) == 0o600 for f in files)


def test_report_files_and_their_new_folders_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        written = write_report(full_session(), tmp_path / "out" / "report.md")
        replaced = tmp_path / "plain.csv"
        replaced.write_text("old")
        replaced.chmod(0o644)
        write_atomic(replaced, "symbol\n")
    finally:
        os.umask(old)
    assert mode(tmp_path / "out") == 0o700
    assert written and all(mode(path) == 0o600 for path in written)  # the report and its chart images
    assert mode(replaced) == 0o600 and replaced.read_text() == "symbol\n"
    assert not list(tmp_path.rglob("*.tmp"))
