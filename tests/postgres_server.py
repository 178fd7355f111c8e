"""A real, throwaway PostgreSQL server for the `postgres` tests (Debian's `postgresql` package).

One server per pytest session, in a temp dir, reached over a unix socket in that dir only (no TCP
port to collide with anything else on the machine). initdb refuses to run as root, so as root the
server runs as the unprivileged `postgres` system user (or `nobody`). Each test gets a fresh
database: empty (`postgres_url`) or already migrated to head, copied from a template
(`postgres_migrated_url`, cheaper than nine migrations per test). Without binaries or driver the
tests skip with the reason, never fail.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

try:  # imported once here: a test may make `import psycopg` fail while its database is still open
    import psycopg
except ModuleNotFoundError:  # pragma: no cover - the tests skip, saying why
    psycopg = None  # type: ignore[assignment]

SUPERUSER = "stockdesk"
MIGRATED_TEMPLATE = "stockdesk_migrated"
# A test server: durability off (it is deleted at the end of the session anyway). Its time zone is
# not UTC, as on a server in Shanghai, so that timestamps read or written in the server's zone show.
SERVER_OPTIONS = (
    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=60"
    " -c timezone=Asia/Shanghai"
)


def find_bin_dir() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin holding initdb, pg_ctl and postgres."""
    candidates = []
    for initdb in glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        bin_dir = Path(initdb).parent
        version = bin_dir.parent.name
        if all((bin_dir / name).exists() for name in ("pg_ctl", "postgres")) and version.isdigit():
            candidates.append((int(version), bin_dir))
    return max(candidates)[1] if candidates else None


def _server_user() -> str | None:
    """Who runs the server: ourselves unless root; then an unprivileged system user."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    raise RuntimeError("running as root and neither a 'postgres' nor a 'nobody' user exists")


class PostgresServer:
    """initdb + pg_ctl in a temp dir; `create_database` hands out fresh databases by URL."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.user = _server_user()
        # in /tmp: short (unix socket paths are limited) and reachable by the server user
        self.root = Path(
            tempfile.mkdtemp(prefix="stockdesk-pg-", dir="/tmp" if os.path.isdir("/tmp") else None)
        )
        self.data = self.root / "data"
        self._names = itertools.count(1)
        self._template_ready = False

    def _run(self, *args: str) -> None:
        prefix = [] if self.user is None else _as_user(self.user)
        result = subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{Path(args[0]).name} failed: {(result.stderr or result.stdout).strip()}")

    def start(self) -> None:
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        initdb, pg_ctl = str(self.bin_dir / "initdb"), str(self.bin_dir / "pg_ctl")
        self._run(initdb, "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
                  "--locale=C", "--no-sync")  # fmt: skip
        options = f"-k {self.root} -c listen_addresses='' {SERVER_OPTIONS}"
        self._run(pg_ctl, "-D", str(self.data), "-l", str(self.root / "server.log"), "-o", options,
                  "-w", "-t", "60", "start")  # fmt: skip

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.root}"

    def _admin(self, *statements: str) -> None:
        with psycopg.connect(dbname="postgres", user=SUPERUSER, host=str(self.root), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)  # type: ignore[arg-type]

    def create_database(self, *, migrated: bool = False) -> str:
        """A new database (a copy of the migrated template when `migrated`); returns its name."""
        if migrated and not self._template_ready:
            self._build_template()
        name = f"t{next(self._names)}"
        template = MIGRATED_TEMPLATE if migrated else "template0"
        self._admin(f"CREATE DATABASE {name} TEMPLATE {template}")
        return name

    def drop_database(self, name: str) -> None:
        self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def _build_template(self) -> None:
        from stockdesk.shared.db import Database

        self._admin(f"CREATE DATABASE {MIGRATED_TEMPLATE} TEMPLATE template0")
        database = Database(self.url(MIGRATED_TEMPLATE))
        try:
            database.upgrade()
        finally:
            database.dispose()  # a template must have no open connections when it is copied
        self._template_ready = True


def _as_user(user: str) -> list[str]:
    if shutil.which("runuser"):
        return ["runuser", "-u", user, "--"]
    return ["setpriv", f"--reuid={user}", f"--regid={user}", "--init-groups", "--"]


def _unavailable() -> str | None:
    """Why no server can run here, or None."""
    if psycopg is None:
        return "psycopg is not installed (pip install 'stockdesk[postgres]')"
    if find_bin_dir() is None:
        return "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (make postgres installs them)"
    return None


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server; skips every test that needs it when none can run."""
    reason = _unavailable()
    if reason:
        pytest.skip(f"PostgreSQL tests skipped: {reason}")
    server = PostgresServer(find_bin_dir())  # type: ignore[arg-type]
    try:
        server.start()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        server.stop()
        pytest.skip(f"PostgreSQL tests skipped: cannot start a server ({exc})")
    yield server
    server.stop()


def _fresh(server: PostgresServer, *, migrated: bool) -> Iterator[str]:
    name = server.create_database(migrated=migrated)
    yield server.url(name)
    server.drop_database(name)  # FORCE: whatever engine a test left open is disconnected


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """URL of a new, empty database on the session's server."""
    yield from _fresh(postgres_server, migrated=False)


@pytest.fixture
def postgres_migrated_url(postgres_server: PostgresServer) -> Iterator[str]:
    """URL of a new database already at the head migration."""
    yield from _fresh(postgres_server, migrated=True)
