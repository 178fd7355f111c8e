"""shared/exports: what an `--out` suffix asks for, the page as it is printed, and Chromium's print
(a real one for a Chinese page; stand-in browsers that hang or print nothing for the failures); and
every other HTML report printed through it: the batch index, the track record, a strategy run."""

from __future__ import annotations

import shutil
import subprocess
import time
from datetime import date
from pathlib import Path

import pytest

from stockdesk.coordinator.application.batch_analysis import BatchAnalysisConfig, BatchRow
from stockdesk.coordinator.presentation.reports.batch_index import INDEX_PDF, print_index, write_index
from stockdesk.shared.config import get_settings
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.exports import (
    WORD_ONLY,
    PdfPrintError,
    PdfUnavailableError,
    chromium_path,
    html_to_pdf,
    output_format,
    write_document,
)
from stockdesk.shared.exports.pdf import POLICY, PRINT_STYLE, printable
from stockdesk.shared.tasks import TaskCounts

CHINESE_PAGE = """<!DOCTYPE html><html lang="zh"><head><meta charset="utf-8"><title>报告</title>
<style>body { font-family: "Noto Sans CJK SC", sans-serif; }</style></head>
<body><h1>贵州茅台 研究报告</h1><p>结论：持有。止损 1,520.00 元（-8.0%）。</p>
<script>document.body.innerHTML = "SCRIPT RAN";</script></body></html>"""


def need_printing() -> None:
    if chromium_path() is None:
        pytest.skip("chromium is not installed (`make chromium` installs Debian's package)")
    if not all(shutil.which(tool) for tool in ("pdftotext", "pdffonts")):
        pytest.skip("poppler-utils is not installed (`make test` installs it where apt-get works)")


def fake_browser(folder: Path, body: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in `chromium` (a shell script running `body`) named by STOCKDESK_CHROMIUM_PATH."""
    script = folder / "chromium"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("STOCKDESK_CHROMIUM_PATH", str(script))
    get_settings.cache_clear()


@pytest.mark.parametrize(
    ("name", "own", "word", "fmt"),
    [("r.HTML", {}, False, "html"), ("r.htm", {}, False, "html"), ("r.pdf", {}, False, "pdf"),
     ("r.json", {".json": "json"}, False, "json"), ("r.docx", {}, True, "docx")],
)  # fmt: skip
def test_the_suffix_chooses_the_format(name: str, own: dict[str, str], word: bool, fmt: str) -> None:
    assert output_format(Path(name), own, word=word) == fmt


def test_word_is_the_analysis_reports_and_an_unknown_suffix_names_the_choices() -> None:
    with pytest.raises(BadRequestException) as refused:
        output_format(Path("track.docx"), {".json": "json"})
    assert (refused.value.message, refused.value.code) == (WORD_ONLY, "WORD_ANALYSIS_ONLY")
    with pytest.raises(BadRequestException) as unknown:
        output_format(Path("e.csv"), {".json": "json"}, code="BAD_OUTPUT")
    assert unknown.value.message == "cannot tell the report format of 'e.csv': use .json, .html or .pdf"
    assert unknown.value.code == "BAD_OUTPUT" and unknown.value.exit_code == 2
    with pytest.raises(BadRequestException, match=r"use .md, .html, .pdf or .docx$"):
        output_format(Path("r"), {".md": "md", ".markdown": "md"}, word=True)


def test_the_printed_page_runs_nothing_and_gets_the_print_style_after_its_own() -> None:
    page = printable(CHINESE_PAGE)
    assert page.index('<meta charset="utf-8">') < page.index(POLICY) < page.index("<title>")
    assert page.index("</style>") < page.index(PRINT_STYLE) < page.index("</head>")
    bare = printable("<p>x</p>")  # no head at all: a charset and the policy first
    assert bare.startswith('<meta charset="utf-8">' + POLICY + PRINT_STYLE)


def test_a_chinese_page_prints_with_its_text_and_embedded_fonts_and_its_script_never_runs(
    tmp_path: Path,
) -> None:
    need_printing()
    out = write_document(CHINESE_PAGE, tmp_path / "zh.pdf")
    assert out.read_bytes().startswith(b"%PDF") and [p.name for p in tmp_path.iterdir()] == ["zh.pdf"]
    text = subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True, check=True).stdout
    assert "贵州茅台 研究报告" in text and "止损 1,520.00 元" in text and "SCRIPT RAN" not in text
    fonts = subprocess.run(["pdffonts", str(out)], capture_output=True, text=True, check=True).stdout
    rows = fonts.splitlines()[2:]
    assert rows and all(row.split()[-5] == "yes" for row in rows)  # the "emb" column
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True, check=True).stdout
    assert "(A4)" in info


def test_no_browser_is_a_503_for_the_server_and_exit_2_for_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    get_settings.cache_clear()
    with pytest.raises(PdfUnavailableError) as missing:
        html_to_pdf(CHINESE_PAGE)
    error = missing.value
    assert (error.code, error.http_status, error.exit_code) == ("PDF_UNAVAILABLE", 503, 2)
    assert "make chromium" in error.message and "\n" not in error.message


def alive(pid: int) -> bool:
    """Whether a process still runs (a zombie waiting for its parent's reaping does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_browser_that_prints_nothing_or_hangs_is_stopped_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_browser(tmp_path, 'echo "[ERROR] GPU process crashed" >&2; exit 1', monkeypatch)
    with pytest.raises(PdfPrintError, match=r"printed no PDF .*GPU process crashed$"):
        html_to_pdf(CHINESE_PAGE)
    with pytest.raises(PdfPrintError):
        write_document(CHINESE_PAGE, tmp_path / "out.pdf")  # a failed print writes nothing
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chromium"]
    helper = tmp_path / "helper.pid"  # a child the browser starts, as Chromium's renderers are
    fake_browser(tmp_path, f"sleep 60 & echo $! > {helper}; sleep 60", monkeypatch)
    monkeypatch.setenv("STOCKDESK_PDF_TIMEOUT_SECONDS", "1")
    get_settings.cache_clear()
    started = time.monotonic()
    with pytest.raises(PdfPrintError, match="did not finish printing within 1 s"):
        html_to_pdf(CHINESE_PAGE)
    assert time.monotonic() - started < 10
    deadline = time.monotonic() + 5
    while alive(int(helper.read_text())) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(int(helper.read_text()))  # the whole group was killed, not only the browser


def test_the_batch_index_prints_beside_its_html(tmp_path: Path) -> None:
    need_printing()
    symbols, day = ["600001.SH", "600002.SH"], date(2024, 6, 28)
    config = BatchAnalysisConfig(symbols=symbols, as_of=day, out_dir=str(tmp_path))
    done = BatchRow(symbol=symbols[0], status="done", action="BUY", confidence=0.7)
    rows = [done, BatchRow(symbol=symbols[1], status="failed", error="no bars")]
    write_index(config, "job1", rows, TaskCounts(done=1, failed=1, total=2))
    printed = print_index(config)
    assert printed == tmp_path / INDEX_PDF and printed.read_bytes().startswith(b"%PDF")
    text = subprocess.run(["pdftotext", str(printed), "-"], capture_output=True, text=True, check=True).stdout
    assert "Batch analysis as of 2024-06-28" in text and "600001.SH" in text and "no bars" in text
