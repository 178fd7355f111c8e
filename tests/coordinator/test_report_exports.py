"""The analysis report as PDF and Word (issue 34, item 7): `--out r.pdf` / `--out r.docx` by suffix,
the session pages' downloads, and one-line errors (exit 2) for a bad suffix or a missing Chromium.

The PDF is read back with poppler (pdftoppm renders page 1, pdftotext extracts the text, pdffonts
lists the fonts), the Word file with python-docx. A session from the real pipeline on a SQLite store,
scripted LLM answers (tests/coordinator/support.py).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import docx
import matplotlib.image
import numpy as np
import pytest
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.coordinator.application import ResearchRequest, ResearchSession
from stockdesk.coordinator.presentation.reports.render import write_report
from stockdesk.coordinator.presentation.reports.view import build_view
from stockdesk.entrypoints.container import AppContainer
from stockdesk.shared.charts.render import PALETTE
from stockdesk.shared.config import Settings
from stockdesk.shared.exports import WORD_ONLY, chromium_path
from stockdesk.shared.wording import say
from tests.api_support import api_client
from tests.coordinator.support import AS_OF, SYMBOL, pipeline

POPPLER = "poppler-utils is not installed (`make test` installs it where apt-get works)"


def need_printing() -> None:
    """Skip, saying why, where a PDF cannot be printed or read back on this machine."""
    if chromium_path() is None:
        pytest.skip("chromium is not installed (`make chromium` installs Debian's package)")
    if not all(shutil.which(tool) for tool in ("pdftoppm", "pdftotext", "pdffonts")):
        pytest.skip(POPPLER)


@pytest.fixture
def analysed(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> tuple[AppContainer, ResearchSession]:
    """A whole analysis (experts, debate, judge) stored, and the CLI wired to the same container."""
    container, _, _ = pipeline(settings)
    monkeypatch.setattr(entry, "_container", container)
    session = container.coordinator.service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF))
    assert len(session.charts) == 4 and session.verdict and session.debate_outcome
    return container, session


def poppler(*command: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


def chart_pixels(pdf: Path) -> int:
    """Pixels of the charts' first series colour over every page (rendered at 30 dpi): the page's own
    colours (verdict, stances, flags) are not that blue, so only drawn charts make many of them."""
    blue = np.array([int(PALETTE[0][i : i + 2], 16) for i in (1, 3, 5)]) / 255
    with tempfile.TemporaryDirectory() as folder:
        poppler("pdftoppm", "-r", "30", "-png", str(pdf), f"{folder}/page")
        pages = [matplotlib.image.imread(p)[..., :3] for p in sorted(Path(folder).glob("*.png"))]
    return sum(int((np.abs(page - blue).max(axis=-1) < 0.05).sum()) for page in pages)


def test_analyze_out_pdf_in_chinese_renders_its_text_fonts_and_charts(
    analysed: tuple[AppContainer, ResearchSession], tmp_path: Path
) -> None:
    need_printing()
    _, session = analysed
    out = tmp_path / "r.pdf"
    result = CliRunner().invoke(
        entry.app, ["analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--lang", "zh", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert f"report written to {out.resolve()}" in result.output
    assert out.read_bytes().startswith(b"%PDF") and not list(tmp_path.glob("*.tmp"))
    # page 1 renders, and is not blank: dark text and a coloured verdict card on white
    poppler("pdftoppm", "-f", "1", "-l", "1", "-r", "50", "-png", str(out), str(tmp_path / "page"))
    page = matplotlib.image.imread(tmp_path / "page-1.png")[..., :3]
    assert page.shape[0] > page.shape[1] > 300  # A4, portrait
    assert page.std() > 0.05 and (page.mean(axis=-1) < 0.5).mean() > 0.005
    # the report's own words are Chinese, and every font is embedded
    first = poppler("pdftotext", "-l", "1", str(out), "-")
    assert say("report.doc.heading", "zh", symbol=SYMBOL) in " ".join(first.split())
    assert say(f"action.{session.verdict['action']}", "zh") in first
    text = " ".join(poppler("pdftotext", str(out), "-").split())
    for heading in ("report.doc.experts", "report.doc.charts", "report.doc.debate", "report.doc.risks"):
        assert say(heading, "zh") in text
    for chart in build_view(session, "zh").charts:  # each chart's caption, in Chinese, under its drawing
        assert " ".join(chart.caption.split())[:20] in text
    fonts = poppler("pdffonts", str(out)).splitlines()[2:]
    assert fonts and all(line.split()[-5] == "yes" for line in fonts), fonts  # the "emb" column
    # the charts are drawn: the same report without its charts has (almost) none of their colour
    bare = tmp_path / "bare.pdf"
    write_report(session.model_copy(update={"charts": []}), bare, lang="zh")
    drawn, without = chart_pixels(out), chart_pixels(bare)
    assert drawn > 500 and drawn > 20 * max(without, 1), (drawn, without)


def test_report_out_docx_holds_the_sections_figures_and_one_picture_per_chart(
    analysed: tuple[AppContainer, ResearchSession], tmp_path: Path
) -> None:
    _, session = analysed
    for lang in ("zh", "en"):
        out = tmp_path / f"r-{lang}.docx"
        result = CliRunner().invoke(entry.app, ["report", session.id, "--lang", lang, "--out", str(out)])
        assert result.exit_code == 0, result.output
        document = docx.Document(str(out))
        headings = [p.text for p in document.paragraphs if p.style.name.startswith("Heading")]
        for key in ("verdict", "experts", "charts", "debate", "risks", "session"):
            assert say(f"report.doc.{key}", lang) in headings, (lang, key, headings)
        view = build_view(session, lang)
        pictures = document.inline_shapes
        assert len(pictures) == len(session.charts) == len(view.charts) == 4
        assert all(shape.width > 0 and shape.height > 0 for shape in pictures)
        for chart in view.charts:  # titled in the report's language
            assert chart.title in headings
        pairs = [t for t in document.tables if len(t.columns) == 2]
        cells = {(row.cells[0].text, row.cells[1].text) for table in pairs for row in table.rows}
        figures = [(p.name, p.value) for e in view.experts for p in e.key_numbers]
        assert figures and set(figures) <= cells  # each expert's figures, labelled, with units
        assert {(p.name, p.value) for p in view.verdict.plan} <= cells  # the plan computed by code
        body = "\n".join(p.text for p in document.paragraphs)
        assert view.debate.resolution in body and view.debate.bull_thesis in body
        assert say(f"action.{session.verdict['action']}", lang) in body
    media = [p for p in docx.Document(str(out)).part.package.parts if p.content_type == "image/png"]
    assert len(media) == 4 and all(part.blob.startswith(b"\x89PNG") for part in media)


def test_the_session_pages_download_pdf_and_word_in_the_pages_language(
    analysed: tuple[AppContainer, ResearchSession],
) -> None:
    container, session = analysed
    client = api_client(container)
    chinese = client.get(f"/sessions/{session.id}", headers={"Accept-Language": "zh-CN"}).text
    view = client.get(f"/sessions/{session.id}/report", headers={"Accept-Language": "zh-CN"}).text
    for page in (chinese, view):
        assert f'href="/sessions/{session.id}/report.pdf?lang=zh" download>PDF</a>' in page
        assert f'href="/sessions/{session.id}/report.docx?lang=zh" download>Word 文档</a>' in page
    name = f"{SYMBOL}-{AS_OF.isoformat()}-{session.id[:8]}"
    word = client.get(f"/sessions/{session.id}/report.docx", params={"lang": "zh"})
    assert word.status_code == 200
    assert word.headers["content-type"] == (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    )
    assert word.headers["content-disposition"] == f'attachment; filename="{name}.docx"'
    assert len(docx.Document(io.BytesIO(word.content)).inline_shapes) == 4
    pdf = client.get(f"/sessions/{session.id}/report.pdf")
    if chromium_path() is None:  # the server says why, in the error's own code
        assert pdf.status_code == 503 and "PDF_UNAVAILABLE" in pdf.text
        return
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert pdf.headers["content-disposition"] == f'attachment; filename="{name}.pdf"'
    assert pdf.content.startswith(b"%PDF") and b"%%EOF" in pdf.content[-64:]


def stockdesk(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The real command (its own process, its own exit code), in this test's STOCKDESK_HOME."""
    return subprocess.run(
        [sys.executable, "-m", "stockdesk", *args],
        capture_output=True,
        text=True,
        env=os.environ | env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["analyze", SYMBOL, "--out", "r.txt"], {}, "cannot tell the report format of 'r.txt': use .md, "),
        (["report", "abc", "--out", "r.odt"], {}, "use .md, .json, .html, .pdf or .docx"),
        (["track", "--out", "t.docx"], {}, WORD_ONLY),
        (
            ["report", "abc", "--out", "r.pdf"],
            {"STOCKDESK_CHROMIUM_PATH": "/nonexistent/chromium"},
            "STOCKDESK_CHROMIUM_PATH=/nonexistent/chromium is not an executable file; run `make chromium`",
        ),
        (
            ["analyze", SYMBOL, "--rules-only", "--out", "r.pdf"],
            {"PATH": "/nonexistent"},
            "PDF export needs Chromium, which is not installed: run `make chromium`",
        ),
    ],
    ids=["analyze-txt", "report-odt", "track-docx", "chromium-path", "no-chromium"],
)
def test_a_bad_suffix_or_no_chromium_is_one_line_and_exit_2_before_any_work(
    args: list[str], env: dict[str, str], message: str, tmp_path: Path
) -> None:
    result = stockdesk(*args, **env)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], result.stderr
    assert not list(tmp_path.glob("r.*"))  # nothing written
