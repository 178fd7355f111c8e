"""Checks of this machine's state: the store (reachable, schema at head, what data it holds), the
configured LLM aliases, the disk, and the strategy sandbox's isolation layers.

The doctor never changes the store: a schema behind head is reported (it would be upgraded by the
next command that opens the store), and the data is read only when the schema is at head, since the
data context's reads bring the schema up first.
"""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

from stockdesk.entrypoints.doctor.checks import DoctorContext, Finding, Status
from stockdesk.llm_platform.container import alias_problem
from stockdesk.llm_platform.presentation.cli import size_text
from stockdesk.shared.config import LLMAliasConfig

LOAD_DATA = (
    "`stockdesk data load-sample` (8 A-shares to 2020-06-16), or `stockdesk data import ...` / "
    "`stockdesk data sync ...` (README, Market data)"
)
UPGRADE = "`stockdesk db upgrade` (any command that opens the store also applies them)"
DISK_LOW_BYTES = 2 * 1024**3  # the model file alone is 1.04 GB; a store of years of bars, a few GB
DISK_MIN_BYTES = 512 * 1024**2  # below this, SQLite writes start failing with "database or disk is full"
SANDBOX_PACKAGE = "stockdesk.strategy_lab.infrastructure.sandbox"


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def check_store(context: DoctorContext) -> Finding:
    """The store opens, and its schema is this version's head."""
    url = context.settings.effective_database_url
    path = context.sqlite_path
    if path is not None and not path.is_file():
        return Finding(
            Status.WARN,
            f"no store yet at {path}",
            "any command that reads the store creates it, e.g. " + LOAD_DATA,
        )
    try:
        state = context.schema
    except Exception as exc:
        return Finding(
            Status.FAIL,
            f"cannot open {url}: {' '.join(str(exc).split())}",
            "check STOCKDESK_DATABASE_URL (and, for PostgreSQL, that the server runs and the user "
            "may connect)",
        )
    where = f"{url} ({size_text(path.stat().st_size)})" if path is not None else url
    if not state.known:
        return Finding(
            Status.FAIL,
            f"{where} is at revision {state.current}, which is none of this version's migrations "
            f"(head {state.head}): a newer stockdesk wrote it",
            "run the stockdesk version that wrote it, or point STOCKDESK_DATABASE_URL at another store",
        )
    if state.pending:
        at = f"revision {state.current}" if state.current else "no schema yet"
        return Finding(
            Status.WARN,
            f"{where} is at {at}; {_plural(len(state.pending), 'migration')} behind head {state.head}: "
            + ", ".join(state.pending),
            UPGRADE,
        )
    return Finding(Status.OK, f"{where} at revision {state.current} (head)")


def store_not_ready(context: DoctorContext) -> str | None:
    """Why the data cannot be read without changing the store (see the module docstring), or None."""
    path = context.sqlite_path
    if path is not None and not path.is_file():
        return "no store yet (see the store check)"
    try:
        state = context.schema
    except Exception:
        return "the store cannot be opened (see the store check)"
    if not state.known or state.pending:
        return "not read while the store's schema is not at head (see the store check)"
    return None


def check_market_data(context: DoctorContext) -> Finding:
    """Per dataset: how many symbols and rows, from which day to which (the data context's coverage)."""
    reason = store_not_ready(context)
    if reason is not None:
        return Finding(Status.SKIP, reason)
    datasets = context.data.coverage.datasets()
    if not datasets:
        return Finding(Status.WARN, "the store holds no market data", LOAD_DATA)
    lines = [
        f"{d.dataset}: {_plural(d.symbols, 'symbol')}, {_plural(d.rows, 'row')}, {d.first} to {d.last}"
        for d in datasets
    ]
    return Finding(Status.OK, "\n".join(lines))


def _alias_line(alias: LLMAliasConfig) -> str:
    if alias.provider == "embedded":
        return f"{alias.name}: the embedded model, priority {alias.priority}"
    key = (
        "no key"
        if not alias.api_key_env
        else f"key ${alias.api_key_env} {'set' if os.environ.get(alias.api_key_env) else 'not set'}"
    )
    where = f"{alias.model or 'no model'} at {alias.base_url or 'the provider default URL'}"
    return f"{alias.name}: {alias.provider}, {where}, {key}, priority {alias.priority}"


def check_llm_aliases(context: DoctorContext) -> Finding:
    """The router's aliases in the order tried; keys show only as set or not set."""
    aliases = context.settings.resolved_aliases()
    problems = [p for p in (alias_problem(a) for a in aliases) if p]
    found = "\n".join(_alias_line(a) for a in aliases)
    if len(problems) == len(aliases):
        return Finding(Status.FAIL, found + "\nno alias can be used", "; ".join(problems))
    if problems:
        return Finding(Status.WARN, found, "; ".join(problems) + " (the router skips it)")
    return Finding(Status.OK, found)


def _existing(path: Path) -> Path:
    """The path, or its nearest existing parent (a home not created yet is on its parent's disk)."""
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def check_disk(context: DoctorContext) -> Finding:
    """Free space where STOCKDESK_HOME is (the store, the logs, the cache and by default the model)."""
    home = context.settings.home
    usage = shutil.disk_usage(_existing(home))
    found = f"{size_text(usage.free)} free of {size_text(usage.total)} on the disk of {home}"
    fix = "free space on that disk, or set STOCKDESK_HOME to a folder on a larger one (README, Configuration)"
    if usage.free < DISK_MIN_BYTES:
        return Finding(Status.FAIL, f"{found} (below {size_text(DISK_MIN_BYTES)})", fix)
    if usage.free < DISK_LOW_BYTES:
        return Finding(Status.WARN, f"{found} (below {size_text(DISK_LOW_BYTES)})", fix)
    return Finding(Status.OK, found)


def check_sandbox(_context: DoctorContext) -> Finding:
    """The strategy sandbox's isolation layers, as the sandbox reports them (name, active, detail):
    a layer the kernel refuses is named here, while the child runs with the others."""
    report = getattr(importlib.import_module(SANDBOX_PACKAGE), "sandbox_layers", None)
    if report is None:
        return Finding(Status.SKIP, "sandbox layer report not available in this version")
    layers = list(report())
    lines = [
        f"{layer.name}: {'on' if layer.active else 'off'}" + (f" ({layer.detail})" if layer.detail else "")
        for layer in layers
    ]
    off = [str(layer.name) for layer in layers if not layer.active]
    if not layers:
        return Finding(Status.WARN, "the sandbox reports no layer")
    if off:
        return Finding(
            Status.WARN,
            "\n".join(lines),
            f"strategies run without: {', '.join(off)}; each line says why (a kernel or container that "
            "refuses namespaces or seccomp filters, or a user that may not change its identity)",
        )
    return Finding(Status.OK, "\n".join(lines))
