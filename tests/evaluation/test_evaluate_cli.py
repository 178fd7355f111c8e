"""`stockdesk evaluate` on the command line: a universe file, the report files, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.evaluation.market import populate, symbols

NAMES = symbols(5)
WINDOW = ("--from", "2023-01-02", "--to", "2023-06-30", "--horizons", "5,20")


@pytest.fixture
def app(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> typer.Typer:
    container = AppContainer(settings)
    populate(container.database, NAMES)
    monkeypatch.setattr(entry, "_container", container)
    return entry.app


def test_a_universe_file_and_both_report_files(app: typer.Typer, tmp_path: Path) -> None:
    universe = tmp_path / "universe.txt"
    universe.write_text("# five generated A-shares\n" + "\n".join(NAMES) + "\n", encoding="utf-8")
    for name in ("e.json", "e.html"):
        result = CliRunner().invoke(
            app, ["evaluate", "--universe", str(universe), *WINDOW, "--out", str(tmp_path / name)]
        )
        assert result.exit_code == 0, result.output
        assert "headline figures" in result.output and "rules mode: rank IC" in result.output
    data = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    assert data["config"]["symbols"] == NAMES and data["points"]
    assert (tmp_path / "e.html").read_text(encoding="utf-8").count("<svg") == 4
    assert not list(tmp_path.glob("*.tmp"))  # written atomically


def stockdesk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--symbols", "600000.SH", *WINDOW, "--out", "e.csv"), "use .json, .html or .pdf"),
        (
            ("--symbols", "600000.SH", "--universe", "u.txt", *WINDOW),
            "exactly one of --symbols or --universe",
        ),
        (("--symbols", "NOPE.SH", *WINDOW), "not in the store: NOPE.SH"),
        (("--symbols", "600000.SH", "--from", "2023-06-30", "--to", "2023-01-02"), "is after --to"),
        (("--symbols", "600000.SH", *WINDOW[:4], "--horizons", "5,x"), "--horizons must be comma-separated"),
        (("--symbols", "600000.SH", *WINDOW, "--reflection"), "only the full mode runs"),
    ],
    ids=["bad-out", "two-sources", "unknown-symbol", "empty-window", "bad-horizons", "reflection-rules"],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    result = stockdesk("evaluate", *args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], result.stderr
