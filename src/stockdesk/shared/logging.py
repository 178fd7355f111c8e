"""Logging setup: a rotating file in `$STOCKDESK_HOME/logs` plus warnings on stderr.

A filter masks the values of secret environment variables so that a key can never reach a log.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path

from stockdesk.shared.config import SECRET_ENV_VARS

_CONFIGURED = False


class SecretMaskingFilter(logging.Filter):
    """Replace any secret env value found in a formatted message with `***`."""

    def __init__(self, env_names: tuple[str, ...] = SECRET_ENV_VARS):
        super().__init__()
        self._env_names = env_names

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = [v for v in (os.environ.get(n) for n in self._env_names) if v and len(v) >= 6]
        if secrets:
            message = record.getMessage()
            for secret in secrets:
                message = message.replace(secret, "***")
            record.msg, record.args = message, None
        return True


class ConsoleFilter(logging.Filter):
    """Keep file-only records (extra={"console": False}) and tracebacks off the terminal."""

    def filter(self, record: logging.LogRecord) -> bool:
        return getattr(record, "console", True) and record.exc_info is None


FILE_ONLY = {"console": False}


def configure_logging(log_dir: Path, level: str = "INFO", *, console_level: str = "WARNING") -> Path:
    """Configure the root logger once per process; returns the log file path."""
    global _CONFIGURED
    log_file = log_dir / "stockdesk.log"
    if _CONFIGURED:
        return log_file
    log_dir.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    root.setLevel(level.upper())
    mask = SecretMaskingFilter()
    file_handler = logging.handlers.RotatingFileHandler(log_file, maxBytes=5_000_000, backupCount=3)
    file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    file_handler.addFilter(mask)
    console = logging.StreamHandler()
    console.setLevel(console_level.upper())
    console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    console.addFilter(mask)
    console.addFilter(ConsoleFilter())
    root.addHandler(file_handler)
    root.addHandler(console)
    for noisy in ("httpx", "httpcore", "openai", "alembic"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    _CONFIGURED = True
    return log_file
