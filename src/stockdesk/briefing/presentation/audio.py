"""The spoken briefing of a job: `<folder>/<job id>.wav`, made by espeak-ng after the script is done.

Beside it, `<job id>.audio` marks that audio was asked for and `<job id>.audio-error` holds why it
could not be made (espeak-ng missing or failing), so a page can say "being made", "ready" or why
not. Job ids are the task store's hex ids: any other text is refused, so no path can leave the folder.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from stockdesk.briefing.domain.dtos import ScriptTurn
from stockdesk.briefing.infrastructure.audio.espeak import AudioError, synthesize
from stockdesk.shared.errors import NotFoundException

_JOB_ID = re.compile(r"^[0-9a-f]{8,64}$")


@dataclass(frozen=True)
class AudioStatus:
    state: str  # none | pending | ready | failed
    error: str | None = None


def _checked(job_id: str) -> str:
    if not _JOB_ID.fullmatch(job_id):
        raise NotFoundException(f"no briefing {job_id}", code="BRIEFING_NOT_FOUND", details={"id": job_id})
    return job_id


def audio_file(folder: Path, job_id: str) -> Path:
    return folder / f"{_checked(job_id)}.wav"


def request_audio(folder: Path, job_id: str) -> None:
    """Note that audio was asked for (and forget an earlier failure: it is tried again)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{_checked(job_id)}.audio").touch()
    (folder / f"{job_id}.audio-error").unlink(missing_ok=True)


def speak(turns: Sequence[ScriptTurn], folder: Path, job_id: str) -> None:
    """Write the WAV; a failure is kept as the reason (the script itself is unaffected)."""
    try:
        synthesize(turns, audio_file(folder, job_id))
    except AudioError as exc:
        (folder / f"{job_id}.audio-error").write_text(exc.message, encoding="utf-8")


def audio_status(folder: Path, job_id: str) -> AudioStatus:
    if audio_file(folder, job_id).is_file():
        return AudioStatus("ready")
    error = folder / f"{job_id}.audio-error"
    if error.is_file():
        return AudioStatus("failed", error.read_text(encoding="utf-8").strip())
    return AudioStatus("pending") if (folder / f"{job_id}.audio").exists() else AudioStatus("none")
