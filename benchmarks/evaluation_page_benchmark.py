"""Benchmark: the web UI's evaluation page (`GET /evaluations/{id}`) of a large finished evaluation.

Target: under 300 ms a view, on this 2-core machine, for thousands of points. The store holds N
generated A-shares (tests.evaluation.market); a rules-mode evaluation runs over them every
`--every` trading days (not timed), then the page is read through the app (a TestClient, so
routing, the view model and the template are all in the figure): the first view after the job
finished (after one request to another page, so the app's own start is not in it), then `--views`
more views, and views of the verdict list sorted by a column and paged.
Usage: python benchmarks/evaluation_page_benchmark.py [--symbols 100] [--every 5] [--views 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.evaluation.market generates the data


def timed(client, url: str) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    clock = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - clock
    if response.status_code != 200:
        raise SystemExit(f"{url}: {response.status_code} {response.text[:300]}")
    return elapsed, len(response.content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--symbols", type=int, default=100)
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--views", type=int, default=5)
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="stockdesk-bench-")
    os.environ["STOCKDESK_HOME"] = home

    from tests.api_support import api_client
    from tests.evaluation.market import populate, symbols

    from stockdesk.entrypoints.container import AppContainer
    from stockdesk.evaluation.domain.dtos import EvaluationConfig
    from stockdesk.shared.config import Settings

    names = symbols(args.symbols)
    container = AppContainer(Settings())
    populate(container.database, names, start=date(2020, 6, 1), end=date(2024, 6, 28))
    config = EvaluationConfig(
        symbols=names, start=date(2021, 6, 1), end=date(2023, 12, 29), every=args.every, mode="rules"
    )
    service = container.evaluation.service
    clock = time.perf_counter()
    job = service.run(config)
    print(f"evaluation: {len(job.points)} points, run and scored in {time.perf_counter() - clock:.1f} s")

    client = api_client(container)
    page = f"/evaluations/{job.job_id}"
    warm, _ = timed(client, "/evaluations")
    print(f"the app's first request (the evaluations list): {warm * 1000:.0f} ms (not the page's)")
    first, size = timed(client, page)
    print(f"first view : {first * 1000:7.0f} ms  ({size / 1e6:.2f} MB of HTML)")
    views = [timed(client, page)[0] for _ in range(args.views)]
    print(f"next views : {statistics.median(views) * 1000:7.0f} ms median of {args.views}")
    for query in ("?sort=excess&dir=desc&h=20", "?sort=symbol&dir=asc&h=60&page=3"):
        sorted_view = statistics.median(timed(client, page + query)[0] for _ in range(args.views))
        print(f"{query:30s}: {sorted_view * 1000:5.0f} ms median")
    print("target     : under 300 ms a view")
    container.close()


if __name__ == "__main__":
    main()
