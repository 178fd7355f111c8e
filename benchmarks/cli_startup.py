"""How long a `stockdesk` command takes before it does anything: the interpreter, the imports and the
command tree. Every CLI call pays it (a cron line, a shell loop over symbols, the tests' subprocesses).

    python benchmarks/cli_startup.py [--runs 5]

Prints the median and the range of wall and CPU seconds for `stockdesk --help` and for a command that
opens the store (`stockdesk watch list` in an empty temp home), and which heavy libraries a plain
`import stockdesk.entrypoints.cli` loaded (none of matplotlib, LangGraph, openai is expected: they load
on first use). Measured on 2026-11-29 on this 2-core machine: --help 2.7 s (4.3 s before the
deferred imports), watch list 2.7 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

PROBE = "import sys, stockdesk.entrypoints.cli; print(' '.join({m.split('.')[0] for m in sys.modules}))"
HEAVY = ("matplotlib", "langgraph", "langsmith", "openai", "pyarrow", "sklearn", "ray", "talib")


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "STOCKDESK_HOME": home}
        cli = [sys.executable, "-m", "stockdesk"]
        for label, args in (("--help", [*cli, "--help"]), ("watch list", [*cli, "watch", "list"])):
            walls, cpus = zip(*(timed(args, env) for _ in range(runs)), strict=True)
            print(
                f"stockdesk {label:<10} wall {statistics.median(walls):.2f} s "
                f"({min(walls):.2f}-{max(walls):.2f}), cpu {statistics.median(cpus):.2f} s, {runs} runs"
            )
        loaded = subprocess.run(
            [sys.executable, "-c", PROBE], env=env, text=True, capture_output=True, check=True
        ).stdout.split()
        heavy = ", ".join(m for m in HEAVY if m in loaded) or "none"
        print(f"heavy libraries loaded by the CLI's import: {heavy}")


if __name__ == "__main__":
    main()
