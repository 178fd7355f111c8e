"""The import benchmark runs end to end on a tiny dataset (the real measurement is run by hand)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "import_benchmark.py"
ROW = re.compile(
    r"^(?P<table>\w+)\s+(?P<rows>[\d,]+)\s+(?P<wall>[\d.]+)\s+(?P<cpu>[\d.]+)\s+(?P<rate>[\d,]+)$"
)


def test_quick_benchmark_prints_rows_per_second_per_table_and_total() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--symbols", "20", "--days", "30"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    lines = {m["table"]: m for line in result.stdout.splitlines() if (m := ROW.match(line.strip()))}
    assert set(lines) == {"bars", "valuations", "total"}, result.stdout
    assert int(lines["bars"]["rows"].replace(",", "")) == 20 * 30
    assert int(lines["valuations"]["rows"].replace(",", "")) == 20 * 30
    assert int(lines["total"]["rows"].replace(",", "")) == 2 * 20 * 30
    assert int(lines["total"]["rate"].replace(",", "")) > 0
    assert re.search(r"target: >= 50,000 rows/s total -> (met|NOT met)", result.stdout)
