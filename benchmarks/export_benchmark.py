"""Benchmark: how long an analysis report takes to export, per format (issue 34, item 7).

One whole analysis (5 experts, bull-bear debate, judge; 4 charts) of the generated A-share the
coordinator tests use (tests.coordinator.support: a real SQLite store, scripted LLM answers) is run
once, not timed; then its report is written `--runs` times in each format, as `stockdesk report ID
--out r.<suffix>` writes it: HTML (the charts drawn as inline SVG), PDF (that HTML printed by
headless Chromium: a fresh browser per export) and Word (the charts drawn as PNG pictures). Printed:
each format's median and worst seconds and its size; for the PDF also the part that is Chromium's
(the print of an HTML page already rendered). No target is asserted: a web download or `--out
r.pdf` waits this long.

Usage: python benchmarks/export_benchmark.py [--runs 5] [--lang zh]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.coordinator.support builds the store


def timed(action, runs: int) -> list[float]:  # type: ignore[no-untyped-def]
    seconds = []
    for _ in range(runs):
        clock = time.perf_counter()
        action()
        seconds.append(time.perf_counter() - clock)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lang", choices=["en", "zh"], default="zh")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ["STOCKDESK_HOME"] = str(Path(folder) / "home")
        from tests.coordinator.support import AS_OF, SYMBOL, pipeline

        from stockdesk.coordinator.application import ResearchRequest
        from stockdesk.coordinator.presentation.reports.render import render_report, write_report
        from stockdesk.shared.config import Settings
        from stockdesk.shared.exports import chromium_path, html_to_pdf

        if chromium_path() is None:
            raise SystemExit("chromium is not installed: `make chromium`")
        container, _, _ = pipeline(Settings())
        session = container.coordinator.service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF))
        print(f"{SYMBOL} as of {AS_OF}: {len(session.charts)} charts, in {args.lang}, {args.runs} runs each")
        print(f"{'format':<22}{'median s':>10}{'worst s':>10}{'size KB':>10}")
        for suffix in ("html", "pdf", "docx"):
            out = Path(folder) / f"r.{suffix}"
            seconds = timed(lambda out=out: write_report(session, out, lang=args.lang), args.runs)
            row = f"{suffix:<22}{statistics.median(seconds):>10.2f}{max(seconds):>10.2f}"
            print(f"{row}{out.stat().st_size / 1024:>10.0f}")
        html = render_report(session, "html", lang=args.lang)
        seconds = timed(lambda: html_to_pdf(html), args.runs)
        print(f"{'pdf: Chromium alone':<22}{statistics.median(seconds):>10.2f}{max(seconds):>10.2f}")
        container.close()


if __name__ == "__main__":
    main()
