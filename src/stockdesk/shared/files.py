"""Writing files stockdesk owns: private to the user who runs it, never seen half-written.

The store, the logs and the reports hold research, keys' traces and LLM prose: the folders stockdesk
creates are 0700 and the files 0600 from the moment they exist (`os.open`'s mode, under any umask),
not loosened by a later chmod. Folders and files that exist already keep their modes.
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def private_dir(path: Path) -> Path:
    """`path` and its missing parents created 0700 (mkdir's `parents` would make them 0755)."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:  # another process made it in between
            if not folder.is_dir():
                raise
    return path


def private_opener(path: str, flags: int) -> int:
    """`open(..., opener=private_opener)`: a file it creates is 0600 (an existing one keeps its mode)."""
    return os.open(path, flags, PRIVATE_FILE)


def create_private(path: Path) -> Path:
    """An empty 0600 file at `path` unless one is there (its folder created 0700): a file another
    library opens later (SQLite's database) starts private, and its journal and WAL copy its mode."""
    if path.exists():  # kept as it is, even read-only: opening it to write is not this one's business
        return path
    private_dir(path.parent)
    with suppress(FileExistsError):  # another process created it in between
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    return path


def write_atomic(path: Path, data: str | bytes) -> Path:
    """Write `data` to `path` through `<name>.tmp` + replace, 0600; missing folders are created 0700."""
    private_dir(path.parent)
    temporary = path.with_name(path.name + ".tmp")
    payload = data if isinstance(data, bytes) else data.encode("utf-8")
    with open(temporary, "wb", opener=private_opener) as out:
        os.fchmod(out.fileno(), PRIVATE_FILE)  # a .tmp left by a crash may have had another mode
        out.write(payload)
    temporary.replace(path)
    return path
