"""What the importer property tests share: malformed-input strategies and the all-or-nothing check.

Each example starts from a valid file and spoils it a little (a bad cell, a missing column, a
duplicate key, a truncated or re-encoded file, random bytes). The import then runs through the real
`stockdesk data import ...` command, and `assert_all_or_nothing` holds it to the contract: success with only
valid data stored, or a StockdeskError with a one-line message and the store exactly as before.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import math
import re
import sqlite3
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from stockdesk.shared.errors import StockdeskError

# every property test: bounded, no deadline (imports touch SQLite), one DB per test function
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

MALFORMED = [
    "", " ", "abc", "NaN", "nan", "inf", "-inf", "Infinity", "1e400", "-1e400", "-1", "-0.0", "0",
    "1e308", "-1e308", "99999999999999999999999999", "2024-02-30", "20241301", "00000000", "99991231",
    "0001-01-01", "9999-12-31 23:59:59", "13/45/2024", "None", "null", "NULL", "#N/A", "true", '"',
    "'", "1,5", "1.2.3", "0x1F", "١٢٣", "\U0001f642", "\x00", "\t", "--", "2024-07-26 25:61:00",
]  # fmt: skip
ENCODINGS = ["utf-16", "gb18030", "cp1252", "utf-8-sig", "utf-32"]
cell_values = st.one_of(st.sampled_from(MALFORMED), st.text(max_size=12))


def csv_variant(data: st.DataObject, text: str) -> bytes:
    """A spoiled copy of a valid CSV text: 1-3 row/column faults, then maybe one byte-level fault."""
    rows = list(csv.reader(io.StringIO(text)))
    for _ in range(data.draw(st.integers(1, 3), label="faults")):
        if not rows:
            break
        fault = data.draw(st.sampled_from(["cell", "cell", "cell", "drop_column", "duplicate", "conflict",
                                           "header_only", "ragged", "drop_row"]), label="fault")  # fmt: skip
        row = data.draw(st.integers(0, len(rows) - 1), label="row")
        width = max(len(r) for r in rows) or 1
        col = data.draw(st.integers(0, width - 1), label="column")
        if fault == "cell" and col < len(rows[row]):
            rows[row][col] = data.draw(cell_values, label="value")
        elif fault == "drop_column":
            rows = [[c for i, c in enumerate(r) if i != col] for r in rows]
        elif fault in ("duplicate", "conflict") and len(rows) > 1:
            copy = list(rows[max(row, 1)])
            if fault == "conflict" and col < len(copy):
                copy[col] = data.draw(cell_values, label="conflicting value")
            rows.insert(data.draw(st.integers(1, len(rows)), label="at"), copy)
        elif fault == "header_only":
            rows = rows[:1]
        elif fault == "ragged":
            rows[row] = rows[row] + [data.draw(cell_values, label="extra cell")]
        elif fault == "drop_row" and len(rows) > 1:
            del rows[max(row, 1)]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return byte_variant(data, out.getvalue())


def byte_variant(data: st.DataObject, text: str | bytes) -> bytes:
    """`text` as UTF-8 bytes, possibly truncated, re-encoded, emptied or with random bytes inserted."""
    raw = text.encode("utf-8") if isinstance(text, str) else text
    fault = data.draw(st.sampled_from(["none", "none", "none", "truncate", "bytes", "encoding", "empty"]),
                      label="byte fault")  # fmt: skip
    if fault == "truncate" and raw:
        return raw[: data.draw(st.integers(0, len(raw) - 1), label="cut")]
    if fault == "bytes":
        at = data.draw(st.integers(0, len(raw)), label="insert at")
        return raw[:at] + data.draw(st.binary(min_size=1, max_size=24), label="bytes") + raw[at:]
    if fault == "encoding" and isinstance(text, str):
        return text.encode(data.draw(st.sampled_from(ENCODINGS), label="encoding"), errors="replace")
    if fault == "empty":
        return b""
    return raw


def json_variant(data: st.DataObject, payload: Any) -> bytes:
    """A spoiled copy of a JSON document: 1-3 leaves replaced or keys dropped, then a byte fault."""
    payload = json.loads(json.dumps(payload))
    for _ in range(data.draw(st.integers(1, 3), label="faults")):
        parent, key = _pick(data, payload)
        if parent is None:
            break
        if data.draw(st.booleans(), label="drop key") and isinstance(parent, dict):
            del parent[key]
        else:
            parent[key] = copy.deepcopy(data.draw(json_junk, label="value"))  # later faults may edit it
    return byte_variant(data, json.dumps(payload, ensure_ascii=False))


json_junk = st.one_of(
    cell_values,
    st.sampled_from([None, -1, 0, 10**30, -(10**30), 1e308, -1.5, True, [], {}, [None], {"x": 1}]),
    st.floats(allow_nan=True, allow_infinity=True),
)


def _pick(data: st.DataObject, node: Any) -> tuple[Any, Any]:
    """A random (container, key) on a path from the root, going down while it can."""
    parent, key = None, None
    while isinstance(node, (dict, list)) and node:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        choice = data.draw(st.sampled_from(keys), label="key")
        parent, key, node = node, choice, node[choice]
        if not data.draw(st.integers(0, 4), label="deeper"):
            break
    return parent, key


def snapshot(db_file: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, sorted: equal snapshots mean nothing was written."""
    with sqlite3.connect(db_file) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: sorted(map(repr, conn.execute(f'SELECT * FROM "{t}"'))) for t in tables}  # type: ignore[arg-type]


def invalid_values(db_file: Path) -> list[str]:
    """Stored values no valid import could write: infinite numbers, NaN/Infinity inside JSON."""
    found: list[str] = []
    with sqlite3.connect(db_file) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            cursor = conn.execute(f'SELECT * FROM "{table}"')
            names = [d[0] for d in cursor.description]
            for row in cursor:
                for name, value in zip(names, row, strict=True):
                    if isinstance(value, float) and not math.isfinite(value):
                        found.append(f"{table}.{name} = {value}")
                    elif isinstance(value, str) and value[:1] in "{[" and _json_with_constants(value):
                        found.append(f"{table}.{name} holds NaN/Infinity JSON: {value[:80]}")
    return found


def _json_with_constants(text: str) -> bool:
    seen: list[str] = []
    try:
        json.loads(text, parse_constant=seen.append)
    except ValueError:
        return False
    return bool(seen)


@dataclass
class Outcome:
    ok: bool
    messages: list[str]


def assert_all_or_nothing(
    app: typer.Typer, args: list[str], db_file: Path, *, spoiled: str | None = None, baseline: bool = False
) -> Outcome:
    """Run `stockdesk data ARGS --json` (an import) and hold it to the all-or-nothing contract.

    Rejected: the store is as before. With `spoiled` (the one spoiled file among several), the
    other files' groups may still be imported, but when a rejected group names the spoiled file,
    no imported one does. `baseline`:
    a clean import, which must succeed (its writes are not compared).
    """
    before = snapshot(db_file)
    result = CliRunner().invoke(app, ["data", *args, "--json"])
    error = result.exception
    if error is not None and not isinstance(error, SystemExit):
        trace = "".join(traceback.format_exception(error))
        assert isinstance(error, StockdeskError), f"unexpected {type(error).__name__}:\n{trace}"
    messages = [error.message] if isinstance(error, StockdeskError) else []
    if result.exit_code == 0:
        found = invalid_values(db_file)
        assert not found, f"imported, but invalid values are stored: {found[:5]}"
        return Outcome(ok=True, messages=messages)
    assert not baseline, f"a clean import failed: {result.output}"
    imported: list[str] = []
    rejected: list[str] = []
    if result.stdout.strip():
        report = json.loads(result.stdout)
        messages += [r["message"] for r in report.get("rejected", [])]
        rejected = [r["source"] for r in report.get("rejected", [])]
        imported = [r["source"] for r in report.get("imported", [])]
    messages += [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert messages, f"failed without a StockdeskError: exit {result.exit_code}\n{result.output}"
    for message in messages:
        assert "\n" not in message and message.strip(), f"not one line: {message!r}"
    if spoiled is not None and any(_names(s, spoiled) for s in rejected):
        named = [s for s in imported if _names(s, spoiled)]
        assert not named, f"{spoiled} was rejected, yet imported in {named}"
    if spoiled is None or not imported:
        after = snapshot(db_file)
        assert after == before, f"rejected, yet the store changed: {_changed(before, after)}"
    return Outcome(ok=False, messages=messages)


def _names(source: str, file: str) -> bool:
    """Whether a group's source (`... [companyfacts/CIK1.json, CIK1.json]`, or a file name) names `file`."""
    return source == file or re.search(rf"[\[ ,]{re.escape(file)}[\],]", source) is not None


def _changed(before: dict[str, list[Any]], after: dict[str, list[Any]]) -> list[str]:
    return [t for t in after if before.get(t) != after[t]]


def write(path: Path, content: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path
