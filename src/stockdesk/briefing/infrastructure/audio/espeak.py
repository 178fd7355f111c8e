"""One WAV file from a script's turns, spoken by espeak-ng with one voice per speaker.

Each turn is synthesised to its own temporary WAV (text on stdin, so a turn starting with "-" is
never read as an option), then the turns are concatenated with the standard `wave` module, with a
short pause between them. espeak-ng writes 16-bit mono 22,050 Hz; every part must have the same
parameters or nothing is written. The file appears atomically (temp + replace).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from stockdesk.briefing.domain.dtos import ANALYST, HOST, ScriptTurn
from stockdesk.shared.errors import StockdeskError

BINARY = "espeak-ng"
VOICES = {HOST: "en-us+m3", ANALYST: "en-us+f3"}
OTHER_VOICES = ("en-us+m1", "en-us+f1", "en-us+m5", "en-us+f4")  # base-script speakers, in order met
PAUSE_SECONDS = 0.35
TIMEOUT_SECONDS = 120
MISSING_MESSAGE = "espeak-ng is not installed: apt install espeak-ng; the script was written without audio"


class AudioError(StockdeskError):
    code = "AUDIO_FAILED"
    http_status = 500


@dataclass(frozen=True)
class AudioFile:
    path: Path
    turns: int
    frames: int
    seconds: float


def espeak_available() -> bool:
    return shutil.which(BINARY) is not None


def voices_for(turns: Sequence[ScriptTurn]) -> dict[str, str]:
    """host and analyst have fixed voices; other speakers get the next free one."""
    voices = dict(VOICES)
    spare = iter(OTHER_VOICES)
    for turn in turns:
        if turn.speaker not in voices:
            voices[turn.speaker] = next(spare, VOICES[HOST])
    return voices


def _speak(text: str, voice: str, out: Path) -> None:
    try:
        subprocess.run(
            [BINARY, "-v", voice, "-w", str(out), "--stdin"],
            input=text.encode("utf-8"),
            capture_output=True,
            check=True,
            timeout=TIMEOUT_SECONDS,
        )
    except subprocess.CalledProcessError as exc:
        detail = exc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise AudioError(f"espeak-ng failed on voice {voice}: {detail[0] if detail else exc}") from exc
    except subprocess.TimeoutExpired as exc:
        raise AudioError(f"espeak-ng took more than {TIMEOUT_SECONDS} s on one turn") from exc


def _concatenate(parts: Sequence[Path], out_path: Path) -> tuple[int, int]:
    """Write the parts one after another (a pause between them); (frames, frame rate).

    Every part must have the first one's channels, sample width, rate and compression."""
    frames, first = 0, None
    with wave.open(str(out_path), "wb") as out:
        for part in parts:
            with wave.open(str(part), "rb") as piece:
                shape = (
                    piece.getnchannels(),
                    piece.getsampwidth(),
                    piece.getframerate(),
                    piece.getcomptype(),
                )
                if first is None:
                    first = shape
                    out.setnchannels(shape[0])
                    out.setsampwidth(shape[1])
                    out.setframerate(shape[2])
                elif shape != first:
                    raise AudioError(f"espeak-ng wrote {part.name} as {shape}, the first turn as {first}")
                if frames:
                    pause = int(shape[2] * PAUSE_SECONDS)
                    out.writeframes(b"\x00" * pause * shape[0] * shape[1])
                    frames += pause
                out.writeframes(piece.readframes(piece.getnframes()))
                frames += piece.getnframes()
    return frames, first[2] if first else 1


def synthesize(turns: Sequence[ScriptTurn], path: Path) -> AudioFile:
    """Write `path` (a .wav) from the turns; raises AudioError when espeak-ng fails or is missing."""
    if not espeak_available():
        raise AudioError(MISSING_MESSAGE, code="ESPEAK_MISSING")
    if not turns:
        raise AudioError("a script without turns has nothing to speak", code="AUDIO_EMPTY")
    voices = voices_for(turns)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with tempfile.TemporaryDirectory(prefix="stockdesk-audio-") as folder:
        parts = []
        for turn in turns:
            part = Path(folder) / f"{turn.id:05d}.wav"
            _speak(turn.text, voices[turn.speaker], part)
            parts.append(part)
        try:
            frames, rate = _concatenate(parts, temporary)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
    temporary.replace(path)
    return AudioFile(path=path, turns=len(turns), frames=frames, seconds=round(frames / rate, 2))
