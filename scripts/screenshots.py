"""Screenshots of every web UI page at 1280 and 390 px in English and Chinese, each checked.

    python scripts/screenshots.py                       # a sample store in a temporary home
    python scripts/screenshots.py --url http://127.0.0.1:8000 --out build/screenshots

Without `--url` it builds a store of its own first (`stockdesk data load-sample`, one rules-only
analysis and one rules evaluation: no model needed) and serves it. It then walks the UI from `/`
(same-origin links, at most two pages of one route shape: `/sessions/<id>` once or twice, not once
per session), and for each page, width and language saves a full-page PNG and checks:

- **overprinted chart labels**: every text ECharts paints in a chart (read from its scene graph, as
  tests/browser/chart_text.py does) must overlap no other and stay inside the chart's frame;
- **raw snake_case keys** in visible text outside code and user data (`<code>`, `translate="no"`);
- **numbers without a unit**: a table cell or figure value that is a bare decimal (`6.1876`);
  whole numbers are counts and pass, and so does a value its page marks `data-unit="none"` (a
  number that has no unit by nature: a Brier score, a sampling temperature).

It writes `report.json` and an `index.html` contact sheet in `--out`, prints a line per finding and
exits 1 when there is one (0 when every page is clean), so it can gate a release by hand.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: the browser tests' chart reader
from tests.browser.chart_text import collisions, read

WIDTHS = (1280, 390)
LANGUAGES = ("en", "zh")
SKIP = re.compile(
    r"^/(api/|static/|logout|lang|jobs/.+/(cancel|resume))|/events\b|download"
    r"|\.(json|md|html|pdf|docx|csv|png|svg|parquet|zip)$"
)
ID_PART = re.compile(r"/([0-9a-f]{8,}|\d+|[0-9]{6}\.[A-Z]{2}|[A-Z]{1,5})(?=/|$)")
SESSION_PAGE = re.compile(r"/sessions/([0-9a-f]{32})")
SAMPLE_SYMBOL = "000338.SZ"  # in the zvt sample `data load-sample` stores (to 2020-06-16)
SAMPLE_EVALUATION = ("2020-03-02", "2020-04-30")

CHECKS_JS = "\n".join(  # the function's source, without its header comment
    line
    for line in Path(__file__).with_name("screenshot_checks.js").read_text(encoding="utf-8").splitlines()
    if not line.startswith("//")
)


@dataclass
class Shot:
    path: str
    width: int
    language: str
    file: str
    snake: list[str] = field(default_factory=list)
    unitless: list[str] = field(default_factory=list)
    overlaps: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def findings(self) -> list[str]:
        return [
            *(f"raw key {word}" for word in self.snake),
            *(f"number without unit {text}" for text in self.unitless),
            *self.overlaps,
            *self.errors,
        ]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _stockdesk(home: Path, *args: str) -> str:
    environment = {**os.environ, "STOCKDESK_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "stockdesk", *args],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"stockdesk {' '.join(args)} failed:\n{done.stderr.strip()}")
    return done.stdout


def _prepare(home: Path) -> None:
    """A sample store with one rules-only session and one rules evaluation (no model needed)."""
    if (home / "stockdesk.db").exists():
        return
    print(f"building a sample store in {home} ...", file=sys.stderr)
    _stockdesk(home, "data", "load-sample")
    _stockdesk(home, "analyze", SAMPLE_SYMBOL, "--rules-only")
    start, end = SAMPLE_EVALUATION
    _stockdesk(home, "evaluate", "--symbols", SAMPLE_SYMBOL, "--from", start, "--to", end, "--mode", "rules")


@contextmanager
def _served(home: Path) -> Iterator[str]:
    port = _free_port()
    environment = {**os.environ, "STOCKDESK_HOME": str(home)}
    process = subprocess.Popen(
        [sys.executable, "-m", "stockdesk", "serve", "--port", str(port)],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/api/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise SystemExit("the server did not start")
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def _shape(path: str) -> str:
    return ID_PART.sub("/{id}", path)


def _crawl(page: object, url: str, limit: int) -> list[str]:
    """Same-origin pages reachable from `/`, at most two per route shape, in the order found."""
    origin = urlsplit(url).netloc
    queue, seen, per_shape = ["/"], set(), {}
    pages: list[str] = []
    while queue and len(pages) < limit:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        shape = _shape(urlsplit(path).path)
        if per_shape.get(shape, 0) >= 2:
            continue
        try:
            answer = page.goto(urljoin(url, path))  # type: ignore[attr-defined]
        except Exception as exc:  # a download, not a page
            print(f"skipped {path}: {str(exc).splitlines()[0]}", file=sys.stderr)
            continue
        if (
            answer is None
            or answer.status >= 400
            or "text/html" not in answer.headers.get("content-type", "")
        ):
            continue
        per_shape[shape] = per_shape.get(shape, 0) + 1
        pages.append(path)
        session = SESSION_PAGE.fullmatch(urlsplit(path).path)
        if session:  # an analysis's progress page is linked from where it starts, not from its session
            queue.append(f"/analyses/{session.group(1)}")
        for href in page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))"):  # type: ignore[attr-defined]
            target = urlsplit(urljoin(urljoin(url, path), href))
            if target.netloc == origin and not SKIP.search(target.path):
                queue.append(target.path + (f"?{target.query}" if target.query else ""))
    return pages


def _slug(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-") or "home"


def _shoot(browser: object, url: str, paths: list[str], out: Path) -> list[Shot]:
    shots: list[Shot] = []
    for language in LANGUAGES:
        for width in WIDTHS:
            context = browser.new_context(  # type: ignore[attr-defined]
                viewport={"width": width, "height": 900},
                locale="zh-CN" if language == "zh" else "en-US",
                extra_http_headers={"Accept-Language": "zh-CN,zh" if language == "zh" else "en-US,en"},
            )
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc, errors=errors: errors.append(f"javascript error: {exc}"))
            folder = out / f"{language}-{width}"
            folder.mkdir(parents=True, exist_ok=True)
            for path in paths:
                errors.clear()
                page.goto(urljoin(url, path), wait_until="networkidle")
                _wait_for_charts(page)
                file = folder / f"{_slug(path)}.png"
                page.screenshot(path=str(file), full_page=True)
                found = page.evaluate(CHECKS_JS)
                shots.append(
                    Shot(
                        path, width, language, str(file.relative_to(out)),
                        overlaps=_chart_collisions(page), errors=list(errors), **found,
                    )
                )  # fmt: skip
            context.close()
    return shots


def _wait_for_charts(page: object) -> None:
    """Until every chart stands with its labels placed (charts.js marks it), or 10 s."""
    placed = "() => [...document.querySelectorAll('[data-spec]')].every(e => e.dataset.labels === 'placed')"
    with contextlib.suppress(Exception):  # a chart that never settles is reported by the checks
        page.wait_for_function(placed, timeout=10_000)  # type: ignore[attr-defined]


def _chart_collisions(page: object) -> list[str]:
    """Every chart's texts drawn over each other or outside it, read as the browser tests read them."""
    found: list[str] = []
    ids = page.eval_on_selector_all("[data-chart-id]", "els => els.map(e => e.dataset.chartId)")  # type: ignore[attr-defined]
    for chart_id in ids:
        outside, clashes = collisions(read(page, chart_id))  # type: ignore[arg-type]
        found += [f"chart {chart_id}: outside: {text}" for text in outside]
        found += [f"chart {chart_id}: overprinted: {pair}" for pair in clashes]
    return found


def _write(out: Path, shots: list[Shot]) -> None:
    (out / "report.json").write_text(
        json.dumps([{**asdict(s), "findings": s.findings} for s in shots], ensure_ascii=False, indent=2),
        encoding="utf-8",
    )
    rows = "\n".join(
        f'<figure><a href="{s.file}"><img src="{s.file}" width="240" loading="lazy"></a>'
        f"<figcaption>{s.language} {s.width}px {s.path}<br>"
        f"{'<br>'.join(s.findings) or 'clean'}</figcaption></figure>"
        for s in shots
    )
    (out / "index.html").write_text(
        f"<!doctype html><meta charset=utf-8><title>stockdesk screenshots</title>"
        f"<style>body{{display:flex;flex-wrap:wrap;gap:12px;font:12px sans-serif}}"
        f"figure{{width:260px;margin:0}}</style>{rows}",
        encoding="utf-8",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running stockdesk serve (default: serve a sample store)")
    parser.add_argument("--home", type=Path, help="the sample store's home (default: a temporary one)")
    parser.add_argument("--out", type=Path, default=Path("build/screenshots"))
    parser.add_argument("--max-pages", type=int, default=60)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="stockdesk-shots-") as scratch:
        home = args.home or Path(scratch)
        if args.url is None:
            _prepare(home)
        with _served(home) if args.url is None else _given(args.url) as url, sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            paths = _crawl(browser.new_page(), url, args.max_pages)
            shots = _shoot(browser, url, paths, args.out)
            browser.close()
    _write(args.out, shots)
    bad = [s for s in shots if s.findings]
    for shot in bad:
        for finding in shot.findings:
            print(f"{shot.language} {shot.width}px {shot.path}: {finding}")
    print(f"{len(shots)} screenshots of {len(paths)} pages in {args.out}; {len(bad)} with findings")
    return 1 if bad else 0


@contextmanager
def _given(url: str) -> Iterator[str]:
    yield url.rstrip("/")


if __name__ == "__main__":
    raise SystemExit(main())
