"""`stockdesk watch` and `stockdesk holdings` as a user runs them (their own process): exit 0 and the
result, or exit 2 and one error line naming the line or symbol, with nothing written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from stockdesk.entrypoints.container import AppContainer
from tests.portfolio.support import AS_OF, FIXTURES, close_on


def stockdesk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args],
        capture_output=True,
        text=True,
        env=os.environ | {"COLUMNS": "200"},
        timeout=120,
        check=False,
    )


def test_watch_add_list_remove(app_container: AppContainer) -> None:
    app_container.close()
    added = stockdesk("watch", "add", "core", "600001", "示例地产")
    assert added.returncode == 0, added.stderr
    assert "core: 600001.SH 000002.SZ" in added.stdout
    assert stockdesk("watch", "add", "core", "600001.SH").returncode == 0  # a rerun adds nothing
    listed = stockdesk("watch", "list", "--json")
    assert [(w["name"], [m["symbol"] for m in w["members"]]) for w in json.loads(listed.stdout)] == [
        ("core", ["600001.SH", "000002.SZ"])
    ]
    unknown = stockdesk("watch", "add", "core", "AAPL", "ZZZZ")
    assert unknown.returncode == 2
    assert unknown.stderr.strip().splitlines() == ["error: unknown symbol 'ZZZZ': not in the store"]
    assert stockdesk("watch", "remove", "core").returncode == 0
    missing = stockdesk("watch", "list", "core")
    assert missing.returncode == 2 and "no watchlist named 'core'" in missing.stderr


def test_holdings_import_list_and_a_damaged_file(app_container: AppContainer, tmp_path: Path) -> None:
    app_container.close()
    done = stockdesk("holdings", "import", str(FIXTURES / "tdx_positions.csv"), "--account", "tdx")
    assert done.returncode == 0, done.stderr
    assert "tdx layout: imported 2 positions in tdx" in done.stdout
    bad = tmp_path / "bad.csv"
    lines = ["symbol,quantity,cost_price"] + [f"60000{i}.SH,100,10" for i in (1, 3)]
    lines += ["AAPL,1,1", "000002.SZ,1,1", "600001.SH,x,1"]
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    failed = stockdesk("holdings", "import", str(bad), "--account", "tdx", "--replace")
    assert failed.returncode == 2
    assert failed.stderr.strip().splitlines() == [
        "error: holdings file: line 6: quantity 'x' is not a number; nothing was imported"
    ]
    listed = stockdesk("holdings", "list", "--as-of", "2024-06-28", "--json")
    rows = {r["symbol"]: r for r in json.loads(listed.stdout)}
    assert set(rows) == {"600001.SH", "000002.SZ"}
    assert rows["600001.SH"]["close"] == close_on("600001.SH", AS_OF)
    assert rows["600001.SH"]["quantity"] == 2000
    table = stockdesk("holdings", "list", "--as-of", "2024-06-28")
    assert "Unrealised" not in table.stdout  # the CLI's headings are the field names
    assert "unrealised pnl pct" in table.stdout and "600001.SH" in table.stdout
    assert stockdesk("holdings", "remove", "600001.SH", "--account", "tdx").returncode == 0
    gone = stockdesk("holdings", "remove", "600001.SH", "--account", "tdx")
    assert gone.returncode == 2 and "no position in 600001.SH" in gone.stderr
