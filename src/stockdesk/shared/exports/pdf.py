"""Any of our self-contained HTML reports as PDF, printed by headless Chromium.

Chromium, not WeasyPrint: it is the browser the web UI and the browser tests already use, so a
report prints with the same layout engine it is read in (CSS grid, inline SVG), and it needs no
native libraries beyond the ones Debian's `chromium` package brings (WeasyPrint needs Pango and
its own font setup). The reports draw their charts as inline SVG (matplotlib, shared/charts) and
run no script, so the page is complete at its load event: nothing to wait for.

Before printing, the page gets a Content-Security-Policy that lets nothing run or load (no script,
no network, no other local file) and one print stylesheet (A4, colours kept, charts and cards not
split, wide tables not clipped): every report prints the same way, and a new one gets it for free.
Chromium embeds the fonts it used (subsets), the CJK ones included, so Chinese renders anywhere.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from stockdesk.shared.config import get_settings
from stockdesk.shared.errors import StockdeskError

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FIX = "run `make chromium` (or `apt-get install chromium fonts-noto-cjk`), or set STOCKDESK_CHROMIUM_PATH"

# Nothing in a printed report may run or load: the same policy as the web UI's framed report view.
POLICY = (
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
    "style-src 'unsafe-inline'; img-src data:; font-src data:\">"
)
PRINT_STYLE = """<style media="print">
@page { size: A4; margin: 12mm 11mm; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { padding: 0 !important; }
main { max-width: none !important; }
svg, img { max-width: 100% !important; height: auto !important; }
figure, tr, li, .facts, .numbers { break-inside: avoid; }
h1, h2, h3 { break-after: avoid; }
.scroll, .table-wrap { overflow: visible !important; }
</style>
"""
FLAGS = (
    "--headless",
    "--no-sandbox",  # root in containers; the page can run nothing anyway (POLICY)
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-sync",
    "--hide-scrollbars",
    "--mute-audio",
    "--no-pdf-header-footer",
    "--print-to-pdf-no-header",  # the same for Chromium before 111; an unknown flag is ignored
)
_HEAD = re.compile(r"<head\b[^>]*>", re.IGNORECASE)
_CHARSET = re.compile(r"<meta\s+charset=[^>]*>", re.IGNORECASE)
_HEAD_END = re.compile(r"</head\s*>", re.IGNORECASE)


class PdfUnavailableError(StockdeskError):
    """No Chromium to print with. The server answers 503 (it cannot, for now); the CLI exits 2, as for
    bad input: the user fixes it by installing, which the message names."""

    code = "PDF_UNAVAILABLE"
    http_status = 503

    @property
    def exit_code(self) -> int:
        return 2


class PdfPrintError(StockdeskError):
    """Chromium ran but gave no PDF (it crashed or ran out of time): its last words are in the message."""

    code = "PDF_FAILED"
    http_status = 500


def chromium_path(configured: str | None = None) -> str | None:
    """The Chromium to print with: `configured` (STOCKDESK_CHROMIUM_PATH) when it is an executable
    file, else the first browser of CHROMIUM_NAMES on PATH (Debian's `chromium` first)."""
    if configured:
        found = shutil.which(configured)
        return found if found else None
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def printable(html: str) -> str:
    """The report with POLICY first in its head (after its charset) and PRINT_STYLE last (so it wins)."""
    charset = _CHARSET.search(html)
    head = charset or _HEAD.search(html)
    policy = POLICY if charset else '<meta charset="utf-8">' + POLICY
    if head is None:
        return policy + PRINT_STYLE + html
    html = html[: head.end()] + policy + html[head.end() :]
    end = _HEAD_END.search(html)
    if end is None:
        return html[: head.end() + len(policy)] + PRINT_STYLE + html[head.end() + len(policy) :]
    return html[: end.start()] + PRINT_STYLE + html[end.start() :]


def find_chromium() -> str:
    """The browser, or PdfUnavailableError naming the fix."""
    configured = get_settings().chromium_path
    found = chromium_path(configured)
    if found is None:
        if configured:
            raise PdfUnavailableError(
                f"PDF export: STOCKDESK_CHROMIUM_PATH={configured} is not an executable file; {FIX}"
            )
        raise PdfUnavailableError(f"PDF export needs Chromium, which is not installed: {FIX}")
    return found


def html_to_pdf(html: str, *, timeout: float | None = None) -> bytes:
    """The report printed to PDF bytes (A4, no header or footer line, backgrounds kept).

    Each print has its own temporary folder (the page, the PDF and a fresh browser profile), so
    prints run side by side and leave nothing behind; `timeout` (default STOCKDESK_PDF_TIMEOUT_SECONDS)
    bounds the whole print, the browser's child processes included."""
    binary = find_chromium()
    limit = timeout if timeout is not None else get_settings().pdf_timeout_seconds
    with tempfile.TemporaryDirectory(prefix="stockdesk-pdf-") as folder:
        page = Path(folder) / "report.html"
        page.write_text(printable(html), encoding="utf-8")
        target = Path(folder) / "report.pdf"
        profile = Path(folder) / "profile"
        command = [binary, *FLAGS, f"--user-data-dir={profile}", f"--print-to-pdf={target}", page.as_uri()]
        said = _run(command, limit)
        data = target.read_bytes() if target.is_file() else b""
    if not data.startswith(b"%PDF"):
        last = next((line for line in reversed(said.splitlines()) if line.strip()), "no output")
        raise PdfPrintError(f"Chromium printed no PDF ({binary}): {last.strip()[:300]}")
    return data


def _run(command: list[str], timeout: float) -> str:
    """Run the browser in its own process group; past `timeout` the whole group is killed. Its output."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        said, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        process.communicate()
        raise PdfPrintError(f"Chromium did not finish printing within {timeout:.0f} s") from None
    _kill_group(process.pid)  # a helper process the browser left behind, if any
    return said or ""


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
