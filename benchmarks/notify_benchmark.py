"""Speed of wording a digest for each platform, fitted to its message limit (no network).

A digest of ROWS symbols (Chinese names, so bytes and characters differ) is worded from the shared
catalogue and cut to each platform's limit by whole rows; fitting searches the number of rows by
halving, so a long digest is measured about log2(rows) times. Prints, per platform, the time to
build the payload and how many rows it kept.

    .venv/bin/python benchmarks/notify_benchmark.py               # 1000 rows
    .venv/bin/python benchmarks/notify_benchmark.py --rows 5000
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import date

from stockdesk.notifications.application import ChangeKind, Digest, DigestChange, DigestRow, digest_text
from stockdesk.notifications.infrastructure import formats


def build(rows: int) -> Digest:
    return Digest(
        title="自选股",
        as_of=date(2026, 11, 27),
        run="bench",
        language="zh",
        changes=[
            DigestChange(kind=ChangeKind.NEW_BUY, symbol=f"{600000 + i}", before="HOLD", after="BUY")
            for i in range(20)
        ],
        rows=[
            DigestRow(
                symbol=f"{600000 + i}", name="贵州茅台", action="BUY", probability=0.6, sample_size=100,
                close=1500.0 + i, change_pct=1.2, stop=1400.0, target=1700.0,
            )
            for i in range(rows)
        ],
        report_url="https://desk.example/r/bench",
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    args = parser.parse_args()
    digest = build(args.rows)
    digest_text(digest)  # the catalogue read once, as in a running process
    platforms = {
        "wecom": lambda: formats.wecom(digest),
        "dingtalk": lambda: formats.dingtalk(digest),
        "feishu": lambda: formats.feishu(digest, "post"),
        "slack": lambda: formats.slack(digest),
        "telegram": lambda: formats.telegram(digest, "1"),
        "email (whole)": lambda: formats.email_html(digest_text(digest)),
    }
    print(f"{args.rows} rows, 20 changes")
    for name, make in platforms.items():
        start = time.perf_counter()
        payload = make()
        elapsed = time.perf_counter() - start
        text = json.dumps(payload, ensure_ascii=False)
        kept = text.count("止损 1,400.00") + text.count("<td>1,400.00</td>")  # a sentence, or a table row
        size = len(text.encode())
        print(f"{name:>14}: {elapsed * 1000:8.1f} ms  rows kept {kept:5d}  payload {size:7d} bytes")


if __name__ == "__main__":
    main()
