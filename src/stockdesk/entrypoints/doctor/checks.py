"""The doctor's framework: a check is a function of the context returning a Finding; the runner
turns each into a CheckResult and never lets a check's own error escape.

A required check that fails makes `stockdesk doctor` exit 1; an optional one (a dev tool, an extra
feature) at worst warns, so a missing espeak-ng never reads as a broken install. Every text a
check returns is redacted with the settings' secrets before it is shown.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel, Field

from stockdesk.data_engineering.container import DataEngineeringContainer
from stockdesk.entrypoints.web.assets import VENDOR_DIR
from stockdesk.llm_platform.infrastructure.embedded.model_files import (
    QWEN_CODER_1_5B,
    ModelPin,
    ProgressCallback,
)
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.db.database import SchemaState
from stockdesk.shared.logging import FILE_ONLY
from stockdesk.shared.redact import redact_text

logger = logging.getLogger("stockdesk.doctor")


class Status(StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"


@dataclass(frozen=True)
class Finding:
    """What one check found, and how to fix it when it is not ok."""

    status: Status
    found: str
    fix: str | None = None


class CheckResult(BaseModel):
    """One line of the doctor's report (and one object of `--json`)."""

    name: str
    required: bool = Field(description="a failure makes the doctor exit 1; optional checks only warn")
    status: Status
    found: str
    fix: str | None = None


class DoctorContext:
    """What the checks read: the settings, where the front-end files and the model pin are (tests
    point them elsewhere), `deep` for the slow checks, and the store, opened once for all checks."""

    def __init__(
        self,
        settings: Settings,
        *,
        deep: bool = False,
        vendor_dir: Path = VENDOR_DIR,
        pin: ModelPin = QWEN_CODER_1_5B,
        progress: ProgressCallback | None = None,
    ):
        self.settings = settings
        self.deep = deep
        self.vendor_dir = vendor_dir
        self.pin = pin
        self.progress = progress

    @cached_property
    def sqlite_path(self) -> Path | None:
        """The SQLite file of the store, or None for another database (or an in-memory one)."""
        url = self.settings.effective_database_url
        if not url.startswith("sqlite"):
            return None
        path = url.split("///", 1)[-1]
        return Path(path) if path and path != ":memory:" else None

    @cached_property
    def database(self) -> Database:
        return Database(
            self.settings.effective_database_url,
            busy_timeout_seconds=self.settings.sqlite_busy_timeout_seconds,
        )

    @cached_property
    def schema(self) -> SchemaState:
        """Read once for the store and data checks; an error is raised again on every read."""
        return self.database.schema_state()

    @cached_property
    def data(self) -> DataEngineeringContainer:
        return DataEngineeringContainer(self.settings, self.database)

    def close(self) -> None:
        if "database" in self.__dict__:
            self.database.dispose()


@dataclass(frozen=True)
class Check:
    name: str
    required: bool
    run: Callable[[DoctorContext], Finding]


def run_check(check: Check, context: DoctorContext) -> CheckResult:
    """The check's finding; its own error is a finding too (logged with its traceback)."""
    try:
        finding = check.run(context)
    except Exception as exc:
        logger.warning("doctor check %r raised", check.name, exc_info=True, extra=FILE_ONLY)
        first = (str(exc).splitlines() or [""])[0]
        finding = Finding(
            Status.FAIL,
            f"the check could not run: {type(exc).__name__}: {first}",
            f"see the traceback in {context.settings.log_dir}",
        )
    status = finding.status
    if status is Status.FAIL and not check.required:
        status = Status.WARN
    secrets = context.settings.secret_values()
    return CheckResult(
        name=check.name,
        required=check.required,
        status=status,
        found=redact_text(finding.found, secrets),
        fix=None if status is Status.OK else redact_text(finding.fix, secrets),
    )


def run_checks(checks: list[Check], context: DoctorContext) -> list[CheckResult]:
    try:
        return [run_check(check, context) for check in checks]
    finally:
        context.close()
