"""Writing output files so that a reader never sees half of one (temp file, then rename)."""

from __future__ import annotations

from pathlib import Path


def write_atomic(path: Path, data: str | bytes) -> Path:
    """Write `data` to `path` through `<name>.tmp` + replace; parent folders are created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    if isinstance(data, bytes):
        temporary.write_bytes(data)
    else:
        temporary.write_text(data, encoding="utf-8")
    temporary.replace(path)
    return path
