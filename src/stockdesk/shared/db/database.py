"""Engine, sessions and schema upgrades for SQLite (default) or PostgreSQL (psycopg 3)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from stockdesk.shared.db.errors import translate
from stockdesk.shared.db.strict_json import strict_json_dumps
from stockdesk.shared.errors import ConfigurationError, ServiceUnavailableError
from stockdesk.shared.files import create_private

logger = logging.getLogger(__name__)
MIGRATIONS_DIR = Path(__file__).parent / "migrations"
DEFAULT_BUSY_TIMEOUT_SECONDS = 30.0


def _sqlite_pragmas(busy_timeout_seconds: float):  # type: ignore[no-untyped-def]
    def on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")  # WAL's recommended level: consistent, fewer fsyncs
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_seconds * 1000)}")
        cursor.close()

    return on_connect


def _postgres_utc(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    """Sessions in UTC, whatever the server's zone: timestamptz values are read back in UTC (as the
    code writes them), and a naive value is never taken as the server's local time."""
    with dbapi_connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'UTC'")
    dbapi_connection.commit()


@dataclass(frozen=True)
class SchemaState:
    """Where a store's schema stands against this version's migrations (`stockdesk doctor`).

    `known` is False when the store's revision is none of this version's (a newer stockdesk wrote
    it); `pending` are the migrations an upgrade would apply, oldest first (empty at head)."""

    current: str | None
    head: str | None
    known: bool
    pending: tuple[str, ...]


class Database:
    """One engine per URL; `session()` is a unit of work that commits or rolls back as a whole.

    On SQLite a writer waits up to `busy_timeout_seconds` for another process's write lock, then
    fails with DatabaseLockedError; a full disk fails with DatabaseFullError (shared.db.errors).
    """

    def __init__(self, url: str, *, busy_timeout_seconds: float = DEFAULT_BUSY_TIMEOUT_SECONDS):
        self.url = url
        self.busy_timeout_seconds = busy_timeout_seconds
        self._upgraded = False
        self._lock = threading.Lock()
        try:
            self.engine: Engine = self._create_engine(url, busy_timeout_seconds)
        except ModuleNotFoundError as exc:  # e.g. psycopg missing for a postgresql URL
            raise ConfigurationError(
                f"database driver for {url.split(':', 1)[0]} is not installed ({exc.name}): "
                "pip install 'stockdesk[postgres]'"
            ) from exc
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @staticmethod
    def _create_engine(url: str, busy_timeout_seconds: float) -> Engine:
        if url.startswith("sqlite"):
            path = url.split("///", 1)[-1]
            if "///" in url and path and path != ":memory:":
                create_private(Path(path.split("?", 1)[0]))  # 0600 in a 0700 folder when created here
            connect_args = {"check_same_thread": False, "timeout": busy_timeout_seconds}
            engine = create_engine(url, connect_args=connect_args)
            event.listen(engine, "connect", _sqlite_pragmas(busy_timeout_seconds))

            def actionable(context: ExceptionContext) -> None:
                """A lock that outlasted the timeout, or a full disk: one clear error, not a traceback."""
                error = translate(context.original_exception, path or url, busy_timeout_seconds)
                if error is not None:
                    raise error from context.sqlalchemy_exception

            event.listen(engine, "handle_error", actionable)
            return engine
        if url.startswith("postgresql://"):
            url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
        engine = create_engine(url, pool_pre_ping=True, json_serializer=strict_json_dumps)
        event.listen(engine, "connect", _postgres_utc)
        return engine

    def _alembic_config(self) -> Config:
        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
        cfg.attributes["engine"] = self.engine
        return cfg

    def head_revision(self) -> str | None:
        return ScriptDirectory.from_config(self._alembic_config()).get_current_head()

    def current_revision(self) -> str | None:
        with self.engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()

    def schema_state(self) -> SchemaState:
        """The schema's revision, the head and what is pending, read without upgrading anything."""
        script = ScriptDirectory.from_config(self._alembic_config())
        try:
            current = self.current_revision()
        except OperationalError as exc:
            raise ServiceUnavailableError(
                f"cannot open the database ({exc.orig}); check STOCKDESK_DATABASE_URL"
            ) from exc
        head = script.get_current_head()
        known = current is None or current in {r.revision for r in script.walk_revisions()}
        pending: tuple[str, ...] = ()
        if known and head is not None and current != head:
            steps = script.iterate_revisions(head, current or "base")
            pending = tuple(reversed([r.revision for r in steps if r is not None]))
        return SchemaState(current=current, head=head, known=known, pending=pending)

    def upgrade(self) -> str | None:
        """Bring the schema to the newest migration; cheap when already there."""
        with self._lock:
            try:
                if self.current_revision() != self.head_revision():
                    logger.info("upgrading database schema at %s", self.url.split("@")[-1])
                    command.upgrade(self._alembic_config(), "head")
            except OperationalError as exc:
                raise ServiceUnavailableError(
                    f"cannot open the database ({exc.orig}); check STOCKDESK_DATABASE_URL"
                ) from exc
            self._upgraded = True
            return self.current_revision()

    def ensure_schema(self) -> None:
        """Run migrations automatically on first use in this process."""
        if not self._upgraded:
            self.upgrade()

    @contextmanager
    def session(self) -> Iterator[Session]:
        self.ensure_schema()
        session = self._sessions()
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def dispose(self) -> None:
        self.engine.dispose()
