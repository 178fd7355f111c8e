"""Where the vendored front-end libraries live, and which of them are missing.

They come from npm (pinned in web/package-lock.json) through `make web-assets`, never from a CDN;
without npm they are absent, and the UI says so in a banner instead of failing in the browser.
"""

from __future__ import annotations

from pathlib import Path

VENDOR_DIR = Path(__file__).resolve().parent / "static" / "vendor"
VENDOR_FILES = (
    "htmx.min.js",
    "sse.js",
    "echarts.min.js",
    "swagger-ui-bundle.js",
    "swagger-ui.css",
    "favicon-32x32.png",
)


def missing_vendor_files(directory: Path = VENDOR_DIR) -> list[str]:
    """The names in VENDOR_FILES that are not (non-empty) files in `directory` (VENDOR_DIR)."""
    return [
        name
        for name in VENDOR_FILES
        if not (directory / name).is_file() or (directory / name).stat().st_size == 0
    ]
