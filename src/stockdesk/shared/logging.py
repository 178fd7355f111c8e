"""Logging setup: a rotating file in `$STOCKDESK_HOME/logs` (0600 in a 0700 folder) plus warnings on stderr.

A filter on both handlers redacts every record (message, traceback, stack) before it is written:
known secret values (keys in the environment, credentials of configured URLs) and any URL
credentials or secret query parameters, so that a key can never reach a log.
"""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

from stockdesk.shared.config import Settings, get_settings
from stockdesk.shared.files import private_dir, private_opener
from stockdesk.shared.redact import redact_text, register_secrets

_CONFIGURED = False


class RedactingFilter(logging.Filter):
    """Rewrite a record's message, traceback text and stack with `redact_text` (never drops it)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string: the handler reports it when formatting
            return True
        clean = redact_text(message)
        if clean != message or record.args:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_text(record.stack_info)
        return True


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """The log file, and each one a rotation starts, created 0600 (`shared.files`): the log holds
    what the desk did and asked, for the user who runs it only."""

    def _open(self):  # type: ignore[no-untyped-def]
        return open(  # the handler keeps it open, and closes it
            self.baseFilename, self.mode, encoding=self.encoding, errors=self.errors, opener=private_opener
        )


class ConsoleFilter(logging.Filter):
    """Keep file-only records (extra={"console": False}) and tracebacks off the terminal."""

    def filter(self, record: logging.LogRecord) -> bool:
        return getattr(record, "console", True) and record.exc_info is None


FILE_ONLY = {"console": False}


def configure_logging(
    log_dir: Path,
    level: str = "INFO",
    *,
    console_level: str = "WARNING",
    settings: Settings | None = None,
) -> Path:
    """Configure the root logger once per process; returns the log file path.

    The secrets of `settings` (default: the process's) are registered for redaction first.
    """
    global _CONFIGURED
    log_file = log_dir / "stockdesk.log"
    if _CONFIGURED:
        return log_file
    register_secrets(*(settings or get_settings()).secret_values())
    private_dir(log_dir)
    root = logging.getLogger()
    root.setLevel(level.upper())
    redact = RedactingFilter()
    file_handler = PrivateRotatingFileHandler(log_file, maxBytes=5_000_000, backupCount=3)
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    file_handler.addFilter(redact)
    console = logging.StreamHandler()
    console.setLevel(console_level.upper())
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    console.addFilter(redact)
    console.addFilter(ConsoleFilter())
    root.addHandler(file_handler)
    root.addHandler(console)
    for noisy in ("httpx", "httpcore", "openai", "alembic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    _CONFIGURED = True
    return log_file
