"""`stockdesk briefing` on the command line: the JSON (spec 7.4), its audit and the Markdown written
atomically after the run, chapters covering contiguous id ranges in ticker order, audio through
espeak-ng (or a one-line notice without it), nothing written when a ticker fails, one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import wave
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.briefing.domain.errors import BriefingTickerError
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.config import Settings
from tests.briefing.briefing_support import (
    BriefingModel,
    base_script,
    llm_over,
    plain_worker,
    seed_briefing_store,
)
from tests.entrypoints.test_cli import stockdesk

ESPEAK_REASON = "espeak-ng is not installed and could not be (make test installs it with apt when it can)"


def app_over(
    model: BriefingModel, settings: Settings, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> typer.Typer:
    container = AppContainer(settings, llm_service=llm_over(model))
    seed_briefing_store(container.database, folder)
    monkeypatch.setattr(entry, "_container", container)
    return entry.app


def cited_worker(ticker: str, prompt: str) -> dict[str, object]:
    turns = plain_worker(ticker, prompt)
    turns["scripts"][3]["sources"] = ["N1"]  # the base script's theme article
    return turns


@pytest.fixture
def base_file(tmp_path: Path) -> Path:
    path = tmp_path / "base.json"
    path.write_text(json.dumps(base_script(closing=True)), encoding="utf-8")
    return path


def briefing_args(out: Path, base: Path, *extra: str) -> list[str]:
    return ["briefing", "--date", "2024-03-01", "--tickers", "zmpl,XMPL,ympl", "--base-script", str(base),
            "--out", str(out), *extra]  # fmt: skip


def test_json_audit_and_markdown_are_written_with_contiguous_chapters_in_ticker_order(
    settings: Settings, tmp_path: Path, base_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_over(BriefingModel(worker=cited_worker), settings, tmp_path, monkeypatch)
    out, md = tmp_path / "out" / "script.json", tmp_path / "out" / "script.md"
    result = CliRunner().invoke(app, briefing_args(out, base_file, "--md", str(md)))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert set(data) == {"date", "user_tickers", "chapter", "scripts"}
    assert data["date"] == "20240301" and data["user_tickers"] == ["ZMPL", "XMPL", "YMPL"]
    names = [c["name"] for c in data["chapter"]]
    assert names == ["opening", "theme", "ticker:ZMPL", "ticker:XMPL", "ticker:YMPL", "closing"]
    covered = 0
    for chapter in data["chapter"]:  # contiguous, in order, covering every turn
        assert chapter["start_id"] == covered and chapter["end_id"] >= covered
        covered = chapter["end_id"] + 1
    assert covered == len(data["scripts"]) == 4 + 3 * 4 + 2
    assert [t["id"] for t in data["scripts"]] == list(range(covered))
    xmpl = next(c for c in data["chapter"] if c["name"] == "ticker:XMPL")
    assert data["scripts"][xmpl["start_id"]]["text"] == "Now to XMPL. What did the panel say?"

    audit = json.loads((tmp_path / "out" / "script.audit.json").read_text(encoding="utf-8"))
    assert list(audit["debates"]) == ["ZMPL", "XMPL", "YMPL"] and set(audit["audit"]["workers"]) == {
        "ZMPL",
        "XMPL",
        "YMPL",
    }
    text = md.read_text(encoding="utf-8")
    assert text.startswith("# Briefing 2024-03-01: ZMPL, XMPL, YMPL\n")
    assert (
        text.index("## opening")
        < text.index("## ticker:ZMPL")
        < text.index("## ticker:YMPL")
        < text.index("## closing")
    )
    assert "**host**: Now to ZMPL. What did the panel say?" in text
    assert "**analyst**: Gross margins rose 41.5% at one maker. [^1]" in text
    assert text.count("[^1]: news: Margins widen (id#THEME:000000000001)") == 1  # defined once, cited 4 times
    assert text.count("[^1]") == 1 + 1 + 3
    assert not list(out.parent.glob("*.tmp"))
    assert "ZMPL: 4 turns (ids 4-7); 0 sources dropped, 0 turns rejected" in result.output
    assert "refiner: 0 edits applied, 0 rejected" in result.output


def test_audio_is_one_wav_spoken_by_espeak_ng(
    settings: Settings, tmp_path: Path, base_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("espeak-ng") is None:
        pytest.skip(ESPEAK_REASON)
    app = app_over(BriefingModel(), settings, tmp_path, monkeypatch)
    out, audio = tmp_path / "script.json", tmp_path / "script.wav"
    result = CliRunner().invoke(app, briefing_args(out, base_file, "--audio", str(audio)))
    assert result.exit_code == 0, result.output
    with wave.open(str(audio), "rb") as spoken:
        assert spoken.getnchannels() == 1 and spoken.getsampwidth() == 2
        frames, rate = spoken.getnframes(), spoken.getframerate()
    turns = len(json.loads(out.read_text(encoding="utf-8"))["scripts"])
    assert frames > 0 and frames / rate > turns * 0.35  # every turn spoken, with a pause between them
    assert f"audio: {turns} turns" in result.output and not list(tmp_path.glob("*.tmp"))


def test_without_espeak_ng_the_script_is_written_and_the_audio_skipped_with_one_line(
    settings: Settings, tmp_path: Path, base_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_over(BriefingModel(), settings, tmp_path, monkeypatch)
    empty = tmp_path / "no-binaries"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # a machine without espeak-ng
    out, md, audio = tmp_path / "script.json", tmp_path / "script.md", tmp_path / "script.wav"
    result = CliRunner().invoke(app, briefing_args(out, base_file, "--md", str(md), "--audio", str(audio)))
    assert result.exit_code == 0, result.output
    assert out.is_file() and md.is_file() and not audio.exists()
    notice = [line for line in result.output.splitlines() if "espeak-ng" in line]
    assert notice == [
        "espeak-ng is not installed: apt install espeak-ng; the script was written without audio"
    ]


def test_a_failing_ticker_fails_the_command_and_writes_nothing(
    settings: Settings, tmp_path: Path, base_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_over(BriefingModel(fail_panel_for="YMPL"), settings, tmp_path, monkeypatch)
    out, md = tmp_path / "script.json", tmp_path / "script.md"
    result = CliRunner().invoke(app, briefing_args(out, base_file, "--md", str(md)))
    assert result.exit_code != 0
    assert isinstance(result.exception, BriefingTickerError) and result.exception.message.startswith("YMPL: ")
    assert list(tmp_path.glob("script*")) == []


def briefing(*args: str) -> subprocess.CompletedProcess[str]:
    return stockdesk("briefing", *args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--date", "2024-13-01", "--tickers", "AAPL"), "'2024-13-01' is not a date"),
        (("--date", "2024-03-01", "--tickers", "AAPL,NV DA"), "bad ticker 'NV DA'"),
        (
            ("--date", "2024-03-01", "--tickers", "AAPL", "--base-script", "missing.json"),
            "cannot read missing.json",
        ),
        (("--date", "2024-03-01", "--tickers", "AAPL", "--base-script", "bad.json"), "bad.json is not JSON"),
        (("--date", "2024-03-01", "--tickers", "AAPL", "--base-script", "gap.json"), "turn ids must be 0..1"),
        (("--date", "2024-03-01", "--tickers", "NOPE,AAPL"), "no daily bars for NOPE, AAPL"),
    ],
    ids=["bad-date", "bad-ticker", "unreadable-base", "base-not-json", "bad-base", "unknown-ticker"],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str, tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{ not json", encoding="utf-8")
    gap = {"chapter": [{"name": "opening", "start_id": 0, "end_id": 1}], "scripts": []}
    gap["scripts"] = [{"id": i, "speaker": "host", "text": "hello"} for i in (0, 2)]
    (tmp_path / "gap.json").write_text(json.dumps(gap), encoding="utf-8")
    result = briefing(*args, "--out", "script.json")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], result.stderr
    assert not (tmp_path / "script.json").exists()


def test_a_bad_output_name_fails_before_any_work(tmp_path: Path) -> None:
    result = briefing("--date", "2024-03-01", "--tickers", "AAPL", "--out", "script.txt")
    assert result.returncode == 2 and "--out must end in .json, got 'script.txt'" in result.stderr
