"""Check an `evaluate --out e.json` against an independent computation from Tushare CSV exports.

For every point: the entry is the first row of `daily_<symbol>.csv` dated after `as_of` with volume;
the forward return at h is close x adj_factor of the h-th such row over open x adj_factor of the
first, minus 1 (the issue's definition), computed here with the csv module only, no stockdesk code.
Usage: python scripts/verify_evaluation_returns.py e.json ../shared/data/tushare
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path


def rows(folder: Path, kind: str, symbol: str) -> list[dict[str, str]]:
    path = next(folder.glob(f"{kind}_{symbol.replace('.', '_')}_*.csv"))
    with path.open(encoding="utf-8") as handle:
        return sorted(csv.DictReader(handle), key=lambda r: r["trade_date"])


def main(report_path: str, folder_path: str) -> int:
    report = json.loads(Path(report_path).read_text(encoding="utf-8"))
    folder = Path(folder_path)
    cache: dict[str, list[tuple[str, float, float]]] = {}
    checked = mismatched = 0
    for point in report["points"]:
        symbol = point["symbol"]
        if symbol not in cache:
            factors = {r["trade_date"]: float(r["adj_factor"]) for r in rows(folder, "adj_factor", symbol)}
            cache[symbol] = []
            for r in rows(folder, "daily", symbol):
                if float(r["vol"] or 0) > 0:
                    factor = factors[r["trade_date"]]
                    cache[symbol].append(
                        (r["trade_date"], float(r["open"]) * factor, float(r["close"]) * factor)
                    )
        day = point["as_of"].replace("-", "")
        after = [bar for bar in cache[symbol] if bar[0] > day]
        for horizon, got in point["forward_returns"].items():
            h = int(horizon)
            expected = after[h - 1][2] / after[0][1] - 1 if len(after) >= h else None
            ok = (got is None and expected is None) or (
                got is not None and expected is not None and abs(got - expected) < 1e-7
            )
            checked += 1
            if not ok:
                mismatched += 1
                print(f"MISMATCH {symbol} {point['as_of']} h={h}: report {got}, csv {expected}")
    print(f"{checked} forward returns checked against the CSVs, {mismatched} mismatched")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
