"""Assembly of the pinned model file from raw chunks: exact bytes, sha256 pin, no partial leftovers."""

from __future__ import annotations

import hashlib
import itertools
import os
import sys
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from stockdesk.llm_platform.domain.exceptions import LocalModelError
from stockdesk.llm_platform.infrastructure.embedded import model_files
from stockdesk.llm_platform.infrastructure.embedded.model_files import (
    QWEN_CODER_1_5B,
    ModelPin,
    ensure_model_file,
    part_paths,
    verify_model_file,
)

PART_SIZES = (3000, 4096, 2500)


@pytest.fixture
def parts(tmp_path: Path) -> list[Path]:
    """Three chunks of a few KB with distinct, non-repeating content."""
    src = tmp_path / "parts"
    src.mkdir()
    paths = []
    for index, size in enumerate(PART_SIZES, start=1):
        path = src / f"part{index:02d}.bin"
        path.write_bytes(os.urandom(size))
        paths.append(path)
    return paths


def _pin_for(chunks: list[Path], **overrides: object) -> ModelPin:
    data = b"".join(p.read_bytes() for p in chunks)
    pin = ModelPin(
        file_name="tiny-model.gguf",
        package_prefix=f"stockdesk_test_absent_part_{uuid.uuid4().hex}_",
        parts=len(chunks),
        package_version="9.9.9",
        size_bytes=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
    )
    return replace(pin, **overrides)  # type: ignore[arg-type]


@pytest.fixture
def models_dir(tmp_path: Path) -> Path:
    return tmp_path / "home" / "models"  # does not exist yet: ensure_model_file creates it


def _marker(target: Path) -> Path:
    return target.with_name(target.name + ".sha256")


# --------------------------------------------------------------------------- assembly


def test_assembly_is_the_exact_concatenation_with_a_marker(parts: list[Path], models_dir: Path) -> None:
    pin = _pin_for(parts)

    target = ensure_model_file(models_dir, pin, sources=parts)

    assert target == models_dir / "tiny-model.gguf"
    assert target.read_bytes() == b"".join(p.read_bytes() for p in parts)
    assert target.stat().st_size == sum(PART_SIZES) == pin.size_bytes
    marker = _marker(target)
    assert marker.is_file()
    assert marker.read_text().split() == [pin.sha256, str(pin.size_bytes), str(target.stat().st_mtime_ns)]
    assert sorted(p.name for p in models_dir.iterdir()) == ["tiny-model.gguf", "tiny-model.gguf.sha256"]
    assert verify_model_file(target, pin)


def test_second_call_returns_without_reading_the_sources(parts: list[Path], models_dir: Path) -> None:
    pin = _pin_for(parts)
    target = ensure_model_file(models_dir, pin, sources=parts)
    content = target.read_bytes()
    mtime = target.stat().st_mtime_ns
    for p in parts:
        p.unlink()

    # Sources gone: any attempt to stat/read them would raise FileNotFoundError.
    again = ensure_model_file(models_dir, pin, sources=parts)
    # No sources at all: falling through would call part_paths() on a prefix that is not installed.
    again_without_sources = ensure_model_file(models_dir, pin)

    assert again == target
    assert again_without_sources == target
    assert target.read_bytes() == content
    assert target.stat().st_mtime_ns == mtime  # not rewritten


def test_sha256_mismatch_raises_and_leaves_nothing_behind(parts: list[Path], models_dir: Path) -> None:
    pin = _pin_for(parts, sha256="0" * 64)

    with pytest.raises(LocalModelError) as info:
        ensure_model_file(models_dir, pin, sources=parts)

    assert "sha256" in str(info.value)
    assert "000000000000" in str(info.value)  # names the expected hash
    assert list(models_dir.iterdir()) == []  # no partial, no target, no marker


def test_sha256_mismatch_does_not_clobber_an_earlier_marker_free_file(
    parts: list[Path], models_dir: Path
) -> None:
    """A stale target without a marker is re-verified; on mismatch it is neither replaced nor blessed."""
    models_dir.mkdir(parents=True)
    stale = models_dir / "tiny-model.gguf"
    stale.write_bytes(b"old")
    pin = _pin_for(parts, sha256="f" * 64)

    with pytest.raises(LocalModelError, match="sha256"):
        ensure_model_file(models_dir, pin, sources=parts)

    assert stale.read_bytes() == b"old"
    assert sorted(p.name for p in models_dir.iterdir()) == ["tiny-model.gguf"]


def test_wrong_total_size_raises_before_writing_anything(parts: list[Path], models_dir: Path) -> None:
    pin = _pin_for(parts)
    pin = replace(pin, size_bytes=pin.size_bytes + 1)
    calls: list[tuple[int, int]] = []

    with pytest.raises(LocalModelError) as info:
        ensure_model_file(models_dir, pin, sources=parts, progress=lambda d, t: calls.append((d, t)))

    message = str(info.value)
    assert str(sum(PART_SIZES)) in message
    assert str(pin.size_bytes) in message
    assert not models_dir.exists()  # not even the directory was created
    assert calls == []


def test_missing_chunk_in_sources_raises_before_writing(parts: list[Path], models_dir: Path) -> None:
    pin = _pin_for(parts)

    with pytest.raises(LocalModelError):
        ensure_model_file(models_dir, pin, sources=parts[:2])

    assert not models_dir.exists()


# --------------------------------------------------------------------------- progress


def test_progress_is_monotonic_and_ends_at_total(parts: list[Path], models_dir: Path) -> None:
    pin = _pin_for(parts)
    calls: list[tuple[int, int]] = []

    ensure_model_file(models_dir, pin, sources=parts, progress=lambda d, t: calls.append((d, t)))

    dones = [d for d, _ in calls]
    assert len(calls) >= len(parts)
    assert all(b > a for a, b in itertools.pairwise(dones))
    assert dones[-1] == pin.size_bytes
    assert {t for _, t in calls} == {pin.size_bytes}


def test_progress_with_small_read_blocks(
    parts: list[Path], models_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_files, "_CHUNK", 1000)
    pin = _pin_for(parts)
    calls: list[tuple[int, int]] = []

    target = ensure_model_file(models_dir, pin, sources=parts, progress=lambda d, t: calls.append((d, t)))

    dones = [d for d, _ in calls]
    # 3000 -> 3 blocks, 4096 -> 5 blocks, 2500 -> 3 blocks
    assert len(calls) == 11
    assert all(b > a for a, b in itertools.pairwise(dones))
    assert dones[-1] == pin.size_bytes
    assert target.read_bytes() == b"".join(p.read_bytes() for p in parts)


# --------------------------------------------------------------------------- re-assembly


def test_modified_target_is_reassembled(parts: list[Path], models_dir: Path) -> None:
    pin = _pin_for(parts)
    target = ensure_model_file(models_dir, pin, sources=parts)
    original = target.read_bytes()
    before = target.stat().st_mtime_ns

    target.write_bytes(b"\0" * len(original))  # same size, different content
    # Filesystems with coarse timestamps could keep the same mtime: force a visibly later one.
    os.utime(target, ns=(before + 2_000_000_000, before + 2_000_000_000))
    assert target.stat().st_size == pin.size_bytes

    again = ensure_model_file(models_dir, pin, sources=parts)

    assert again == target
    assert target.read_bytes() == original
    assert _marker(target).read_text().split() == [
        pin.sha256,
        str(pin.size_bytes),
        str(target.stat().st_mtime_ns),
    ]


def test_target_without_marker_is_reassembled(parts: list[Path], models_dir: Path) -> None:
    pin = _pin_for(parts)
    target = ensure_model_file(models_dir, pin, sources=parts)
    original = target.read_bytes()
    _marker(target).unlink()
    target.write_bytes(b"x" * len(original))

    ensure_model_file(models_dir, pin, sources=parts)

    assert target.read_bytes() == original
    assert _marker(target).is_file()


def test_corrupt_marker_triggers_reassembly(parts: list[Path], models_dir: Path) -> None:
    pin = _pin_for(parts)
    target = ensure_model_file(models_dir, pin, sources=parts)
    _marker(target).write_text("garbage\n")
    calls: list[tuple[int, int]] = []

    ensure_model_file(models_dir, pin, sources=parts, progress=lambda d, t: calls.append((d, t)))

    assert calls, "a bad marker must cause a fresh assembly"
    assert _marker(target).read_text().split()[0] == pin.sha256


# --------------------------------------------------------------------------- part_paths


def test_part_paths_names_the_missing_package_and_how_to_install(parts: list[Path]) -> None:
    pin = _pin_for(parts)

    with pytest.raises(LocalModelError) as info:
        part_paths(pin)

    message = str(info.value)
    assert "model part 1" in message
    assert pin.package_prefix.replace("_", "-") + "1" in message
    assert "not installed" in message
    assert "pip install" in message


def test_ensure_without_sources_reports_the_missing_part(parts: list[Path], models_dir: Path) -> None:
    pin = _pin_for(parts)

    with pytest.raises(LocalModelError, match="not installed"):
        ensure_model_file(models_dir, pin)

    assert not models_dir.exists()


def _install_fake_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefix: str, files: list[Path]
) -> None:
    """Importable modules `<prefix>1..N` whose get_part_path() returns the given files."""
    pkg_root = tmp_path / "site"
    pkg_root.mkdir(exist_ok=True)
    for index, path in enumerate(files, start=1):
        name = f"{prefix}{index}"
        (pkg_root / f"{name}.py").write_text(f"def get_part_path():\n    return {str(path)!r}\n")
        monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.syspath_prepend(str(pkg_root))


def test_part_paths_resolves_installed_modules_in_order(
    parts: list[Path], models_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pin = _pin_for(parts)
    _install_fake_parts(tmp_path, monkeypatch, pin.package_prefix, parts)

    assert part_paths(pin) == parts
    target = ensure_model_file(models_dir, pin)  # no sources: goes through part_paths
    assert target.read_bytes() == b"".join(p.read_bytes() for p in parts)


def test_part_paths_reports_a_missing_file_with_reinstall_command(
    parts: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pin = _pin_for(parts)
    ghost = tmp_path / "gone.bin"
    _install_fake_parts(tmp_path, monkeypatch, pin.package_prefix, [parts[0], ghost, parts[2]])

    with pytest.raises(LocalModelError) as info:
        part_paths(pin)

    message = str(info.value)
    assert "model part 2" in message
    assert str(ghost) in message
    assert f"=={pin.package_version}" in message


def test_real_pin_parts_are_installed_and_add_up() -> None:
    paths = part_paths(QWEN_CODER_1_5B)

    assert len(paths) == QWEN_CODER_1_5B.parts == 22
    assert all(p.is_file() for p in paths)
    assert len(set(paths)) == 22
    assert sum(p.stat().st_size for p in paths) == QWEN_CODER_1_5B.size_bytes


def test_the_file_status_says_missing_then_verified_then_unverified_once_the_file_changes(
    parts: list[Path], models_dir: Path
) -> None:
    """What the settings page shows, without hashing: the checksum mark written after assembly."""
    pin = _pin_for(parts)
    missing = model_files.model_file_status(models_dir, pin)
    assert (missing.present, missing.verified, missing.size_bytes) == (False, False, None)
    assert missing.path == models_dir / pin.file_name and missing.expected_bytes == sum(PART_SIZES)

    target = ensure_model_file(models_dir, pin, sources=parts)
    verified = model_files.model_file_status(models_dir, pin)
    assert (verified.present, verified.verified, verified.size_bytes) == (True, True, sum(PART_SIZES))
    assert verified.sha256 == pin.sha256

    stat = target.stat()
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # touched after its check
    changed = model_files.model_file_status(models_dir, pin)
    assert (changed.present, changed.verified) == (True, False)


def test_a_full_check_marks_a_matching_file_and_never_a_different_one(
    parts: list[Path], models_dir: Path
) -> None:
    """`stockdesk doctor` hashes a file without a mark once; the mark then saves the next check."""
    pin = _pin_for(parts)
    models_dir.mkdir(parents=True)
    target = models_dir / pin.file_name
    target.write_bytes(b"".join(p.read_bytes() for p in parts))
    seen: list[tuple[int, int]] = []

    assert verify_model_file(target, replace(pin, sha256="0" * 64), mark=True) is False
    assert not _marker(target).exists() and not model_files.model_file_status(models_dir, pin).verified

    assert verify_model_file(target, pin, progress=lambda *p: seen.append(p)) is True
    assert not _marker(target).exists()  # without `mark`, only the answer
    assert seen[-1] == (pin.size_bytes, pin.size_bytes)

    assert verify_model_file(target, pin, mark=True) is True
    assert model_files.model_file_status(models_dir, pin).verified
