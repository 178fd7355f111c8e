"""Checks of what `make demo` / `make test` install: the model, the libraries, the front-end files and
the system tools (chromium, PostgreSQL, espeak-ng); the store and the settings are in store_checks.py."""

from __future__ import annotations

import glob
import importlib
import importlib.metadata
import importlib.util
import math
import shutil
import subprocess
from pathlib import Path

from stockdesk.briefing.infrastructure.audio.espeak import BINARY as ESPEAK
from stockdesk.entrypoints.doctor.checks import DoctorContext, Finding, Status
from stockdesk.entrypoints.web.assets import VENDOR_FILES, missing_vendor_files
from stockdesk.llm_platform.domain.exceptions import LocalModelError
from stockdesk.llm_platform.infrastructure.embedded.model_files import (
    model_file_status,
    part_paths,
    verify_model_file,
)
from stockdesk.llm_platform.presentation.cli import size_text
from stockdesk.shared.config import Settings
from stockdesk.shared.exports import chromium_path

INSTALL_LOCAL = "`pip install -e '.[local]'` (or `make demo`)"
REMOTE_ONLY = "not needed: every configured LLM alias is remote"
VERSION_TIMEOUT_SECONDS = 10.0


def embedded_alias(settings: Settings) -> str | None:
    """The name of the router's embedded-model alias, None when only remote aliases are configured."""
    return next((a.name for a in settings.resolved_aliases() if a.provider == "embedded"), None)


def package_version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown)"


def tool_version(binary: str) -> str:
    """The first line a tool prints for --version (chromium's wrapper adds noise on stderr only)."""
    try:
        done = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT_SECONDS
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"(no version: {type(exc).__name__})"
    return (done.stdout.strip().splitlines() or ["(no version printed)"])[0]


def check_model_weights(context: DoctorContext) -> Finding:
    """The assembled weights: present, of the pinned size, and of the pinned sha256 (hashed once, then
    known from the checksum mark beside the file while its size and time are unchanged)."""
    pin, alias = context.pin, embedded_alias(context.settings)
    status = model_file_status(context.settings.models_dir, pin)
    short = f"{pin.sha256[:12]}…"
    rebuild = (
        f"delete {status.path}: the next call to the embedded model assembles it again from the installed "
        f"parts and checks it (`stockdesk llm ping --alias {alias or 'local'}` does it now)"
    )
    if not status.present:
        return _model_absent(status.path, alias, context)
    if status.size_bytes != pin.size_bytes:
        return Finding(
            Status.FAIL,
            f"{status.path} has {status.size_bytes:,} bytes; the pinned file has {pin.size_bytes:,}",
            rebuild,
        )
    size = size_text(pin.size_bytes)
    if status.verified and not context.deep:
        return Finding(
            Status.OK,
            f"{status.path} ({size}), sha256 {short} as pinned (hashed before; the file has not changed "
            "since; --deep hashes it again)",
        )
    if not verify_model_file(status.path, pin, progress=context.progress, mark=True):
        return Finding(Status.FAIL, f"{status.path} ({size}): its sha256 is not the pinned {short}", rebuild)
    return Finding(Status.OK, f"{status.path} ({size}), sha256 {short} as pinned (hashed now)")


def _model_absent(path: Path, alias: str | None, context: DoctorContext) -> Finding:
    if alias is None:
        return Finding(Status.SKIP, f"no model file at {path}; {REMOTE_ONLY}")
    try:
        parts = part_paths(context.pin)
    except LocalModelError as exc:
        return Finding(Status.FAIL, f"no model file at {path}, and {exc}", INSTALL_LOCAL)
    return Finding(
        Status.WARN,
        f"not assembled yet at {path}: the first call to the embedded model joins the {len(parts)} "
        f"installed parts ({size_text(context.pin.size_bytes)}) and checks their sha256",
        f"`stockdesk llm ping --alias {alias}` does it now (about a minute)",
    )


def check_llama_runtime(context: DoctorContext) -> Finding:
    """xllamacpp, which serves the embedded model."""
    alias = embedded_alias(context.settings)
    try:
        importlib.import_module("xllamacpp")
    except ImportError as exc:
        if alias is None:
            return Finding(Status.SKIP, f"xllamacpp is not installed; {REMOTE_ONLY}")
        return Finding(Status.FAIL, f"xllamacpp cannot be imported: {exc}", INSTALL_LOCAL)
    used = "" if alias else f" ({REMOTE_ONLY})"
    return Finding(Status.OK, f"xllamacpp {package_version('xllamacpp')}{used}")


def check_talib(_context: DoctorContext) -> Finding:
    """TA-Lib, which computes the technical expert's indicators: imported and run on five numbers."""
    fix = "`pip install --force-reinstall 'ta-lib>=0.6'` (its wheels carry the C library)"
    try:
        import numpy as np
        import talib
    except ImportError as exc:
        return Finding(Status.FAIL, f"TA-Lib cannot be imported: {exc}", fix)
    last = float(talib.SMA(np.arange(1.0, 6.0), timeperiod=3)[-1])
    c_library = talib.__ta_version__.decode(errors="replace").split(" ")[0]
    if not math.isclose(last, 4.0):
        return Finding(Status.FAIL, f"TA-Lib's 3-day SMA of 1, 2, 3, 4, 5 ends at {last}, not 4", fix)
    return Finding(
        Status.OK,
        f"TA-Lib {package_version('ta-lib')} (C library {c_library}): the 3-day SMA of 1..5 ends at 4",
    )


def check_web_assets(context: DoctorContext) -> Finding:
    """The front-end libraries the web UI and the API docs load (never from a CDN)."""
    missing = missing_vendor_files(context.vendor_dir)
    if missing:
        return Finding(
            Status.FAIL,
            f"missing or empty in {context.vendor_dir}: {', '.join(missing)} (the web UI shows a banner; "
            "the API docs page is blank)",
            "`make web-assets` (needs npm; copies the versions pinned in web/package-lock.json)",
        )
    total = sum((context.vendor_dir / name).stat().st_size for name in VENDOR_FILES)
    return Finding(Status.OK, f"{len(VENDOR_FILES)} files ({size_text(total)}): {', '.join(VENDOR_FILES)}")


def check_ray(context: DoctorContext) -> Finding:
    """Ray, which runs batch work; --deep starts it (or joins the configured cluster) and runs a task."""
    try:
        import ray
    except ImportError as exc:
        return Finding(Status.FAIL, f"ray cannot be imported: {exc}", "`pip install -e .` (or `make demo`)")
    where = context.settings.ray_address or "a local Ray started on demand"
    found = f"ray {ray.__version__}; batch work runs on {where}"
    if not context.deep:
        return Finding(Status.OK, f"{found} (--deep starts it and runs one task)")
    from stockdesk.shared.tasks.ray_engine import start_ray

    def probe() -> int:  # nested: sent by value, so a worker need not import this module
        return 6 * 7

    started_here = not ray.is_initialized()
    try:
        start_ray(context.settings.ray_address, num_cpus=1)
        answer = ray.get(ray.remote(num_cpus=0)(probe).remote(), timeout=120)
    finally:
        if started_here:
            ray.shutdown()
    return Finding(Status.OK, f"{found}; one task ran and answered {answer}")


def check_browser(context: DoctorContext) -> Finding:
    """Chromium prints the PDF reports (shared/exports) and, driven by Playwright, runs the browser
    tests; neither is needed for anything else."""
    chromium = chromium_path(context.settings.chromium_path)
    playwright = importlib.util.find_spec("playwright") is not None
    parts = [
        f"chromium: {tool_version(chromium)} ({chromium})" if chromium else "chromium: not found",
        f"playwright {package_version('playwright')}" if playwright else "playwright: not installed",
    ]
    fixes = []
    if not chromium:
        fixes.append("`make chromium` (Debian's chromium and a CJK font)")
    if not playwright:
        fixes.append("`make install-dev` (Playwright; `playwright install` is never needed)")
    if fixes:
        needs = " (PDF reports need chromium; the browser tests need both)"
        return Finding(Status.WARN, "; ".join(parts) + needs, "; ".join(fixes))
    return Finding(Status.OK, "; ".join(parts))


def postgres_bin_dir() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin holding initdb and pg_ctl, else where PATH has them."""
    found = sorted(
        (Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    dirs = [d for d in found if (d / "pg_ctl").exists()]
    if dirs:
        return dirs[-1]
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb and shutil.which("pg_ctl") else None


def check_postgres(_context: DoctorContext) -> Finding:
    """PostgreSQL's client, server binaries and psycopg: a PostgreSQL store and the postgres tests."""
    psql, server = shutil.which("psql"), postgres_bin_dir()
    psycopg = importlib.util.find_spec("psycopg") is not None
    parts = [
        tool_version(psql) if psql else "psql: not found",
        f"initdb and pg_ctl in {server}" if server else "initdb/pg_ctl: not found",
        f"psycopg {package_version('psycopg')}" if psycopg else "psycopg: not installed",
    ]
    fixes = []
    if not (psql and server):
        fixes.append("`make postgres` (apt-get install postgresql)")
    if not psycopg:
        fixes.append("`pip install -e '.[postgres]'`")
    if fixes:
        return Finding(
            Status.WARN,
            "; ".join(parts) + " (needed only for a PostgreSQL store and the postgres tests)",
            "; ".join(fixes),
        )
    return Finding(Status.OK, "; ".join(parts))


def check_espeak(_context: DoctorContext) -> Finding:
    """espeak-ng, which speaks `stockdesk briefing --audio`."""
    binary = shutil.which(ESPEAK)
    if binary is None:
        return Finding(
            Status.WARN,
            "espeak-ng not found (only `stockdesk briefing --audio` needs it; scripts are written "
            "without audio)",
            "`make espeak` (apt-get install espeak-ng)",
        )
    version = tool_version(binary).split("  ")[0]  # "eSpeak NG text-to-speech: 1.51  Data at: ..."
    return Finding(Status.OK, f"{version} ({binary})")
