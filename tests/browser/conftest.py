"""Browser tests: Debian's headless chromium, driven by Playwright, against a real server process.

Every test here is marked `browser` and skips (the reason shows in the summary) when chromium,
Playwright or the vendored front-end files are missing. `playwright install` is never needed: the
browser is Debian's, passed as `executable_path`. A page fails its test at teardown when any
JavaScript error (console error or uncaught exception) happened on it.

The Playwright driver runs an asyncio loop on this thread while it is started, and `asyncio.run`
refuses to run inside a running loop; so the browser lives for this package only (it stops before
the other packages' tests run) rather than for the whole session.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from stockdesk.entrypoints.web.assets import missing_vendor_files
from stockdesk.shared.exports import chromium_path
from tests.entrypoints.server_process import Server, free_port, running

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Page

REPO = Path(__file__).resolve().parents[2]
SHOTS_DIR = REPO / "build" / "browser"
HERE = Path(__file__).resolve().parent
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
DEFAULT_LOCALE = "en-US"


def skip_reason() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if chromium_path() is None:
        return "chromium is not installed (`make chromium` installs Debian's package)"
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (`make install-dev`)"
    missing = missing_vendor_files()
    if missing:
        return f"front-end files missing: {', '.join(missing)} (`make web-assets` needs npm)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test of this folder `browser`; skip them all, with the reason, when they cannot run."""
    reason = skip_reason()
    for item in items:
        if HERE not in item.path.parents:
            continue
        item.add_marker(pytest.mark.browser)
        if reason:
            item.add_marker(pytest.mark.skip(reason=f"browser: {reason}"))


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """One headless chromium for the browser tests (see the module docstring for why not per session)."""
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        launched = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        yield launched
        launched.close()
    finally:
        playwright.stop()


def _is_error(message: ConsoleMessage) -> bool:
    """console.error and failed loads, except chromium's own /favicon.ico probe (not the page's doing)."""
    location = message.location or {}
    return message.type == "error" and not str(location.get("url", "")).endswith("/favicon.ico")


def _describe(message: ConsoleMessage) -> str:
    location = message.location or {}
    where = f" ({location['url']}:{location.get('lineNumber', '')})" if location.get("url") else ""
    return f"console.error: {message.text}{where}"


@contextmanager
def page_refused_at(browser: Browser, path: str) -> Iterator[Page]:
    """A desktop page like the `page` fixture's, except that a form's own 400 answer at `path` is
    expected (with any query string: a GET form's): chromium reports a document answered 4xx as a
    console error, so that one line is
    allowed; any other console error or uncaught exception still fails the test."""
    context = browser.new_context(viewport=DESKTOP, locale=DEFAULT_LOCALE, reduced_motion="reduce")
    page = context.new_page()
    errors: list[str] = []

    def check(message: ConsoleMessage) -> None:
        where = str((message.location or {}).get("url", ""))
        refused = "status of 400" in message.text and urlsplit(where).path == path  # a GET form's query too
        if message.type == "error" and not refused and not where.endswith("/favicon.ico"):
            errors.append(f"console.error: {message.text} ({where})")

    page.on("console", check)
    page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
    yield page
    context.close()
    assert not errors, "JavaScript errors on the page:\n" + "\n".join(errors)


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Callable[..., Page]]:
    """`open_page(viewport=DESKTOP, locale="en-US", **context_options)`: a page in a fresh context.

    Every page it opened is checked at teardown: any console error or uncaught exception fails the test.
    Motion is reduced by default (steady screenshots); pass reduced_motion="no-preference" to animate.
    """
    opened: list[tuple[Page, list[str]]] = []
    contexts = []

    def make(viewport: dict[str, int] = DESKTOP, locale: str = DEFAULT_LOCALE, **options: object) -> Page:
        options.setdefault("reduced_motion", "reduce")
        context = browser.new_context(viewport=viewport, locale=locale, **options)  # type: ignore[arg-type]
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(_describe(m)) if _is_error(m) else None)
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        opened.append((page, errors))
        return page

    yield make
    for context in contexts:
        context.close()
    found = [error for _, errors in opened for error in errors]
    if found:
        pytest.fail("JavaScript errors on the page:\n" + "\n".join(found), pytrace=False)


def _locale(request: pytest.FixtureRequest) -> str:
    """`@pytest.mark.parametrize("page", ["zh-CN"], indirect=True)` picks the browser's language."""
    return str(getattr(request, "param", DEFAULT_LOCALE))


@pytest.fixture
def page(open_page: Callable[..., Page], request: pytest.FixtureRequest) -> Page:
    """A 1280x900 page (locale en-US unless parametrized indirectly); JS errors fail the test."""
    return open_page(viewport=DESKTOP, locale=_locale(request))


@pytest.fixture
def phone_page(open_page: Callable[..., Page], request: pytest.FixtureRequest) -> Page:
    """A 390x844 phone-sized page, touch enabled; JS errors fail the test."""
    return open_page(viewport=PHONE, locale=_locale(request), has_touch=True, is_mobile=True)


def _safe(name: str) -> str:
    """A file name from a test id or a picture name: letters, digits, '.', '-', '_' only."""
    return re.sub(r"[^\w.-]+", "_", name).strip("_") or "shot"


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Callable[[Page, str], Path]:
    """`shots(page, name)` saves a full-page PNG as build/browser/<test name>/<name>.png; returns its path."""
    folder = SHOTS_DIR / _safe(request.node.name)
    shutil.rmtree(folder, ignore_errors=True)  # only this run's pictures

    def shoot(page: Page, name: str) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{_safe(name)}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return shoot


@dataclass(frozen=True)
class WebServer:
    """The running server: `url` (http://127.0.0.1:<port>), `home` (its STOCKDESK_HOME), `server`."""

    url: str
    home: Path
    server: Server

    def output(self) -> str:
        return self.server.output()


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """A real uvicorn process serving tests.browser.served_web:create over a real SQLite file."""
    home = tmp_path_factory.mktemp("web-home")
    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", "--factory", "tests.browser.served_web:create",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
    ]  # fmt: skip
    with running(command, home, port) as server:
        yield WebServer(url=server.url, home=home, server=server)
        server.stop(timeout=30)
