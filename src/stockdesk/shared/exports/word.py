"""A Word (.docx) document built a block at a time, for reports that have a Word form.

A thin layer over python-docx so that a report's Word builder says what it shows (a heading, a
table of labels and values, a chart with its caption) and not how Word stores it. The one place
that sets the document's fonts: a Latin face and an East Asian one (w:eastAsia), and the proofing
language, so Chinese text shows in Chinese type in Word, LibreOffice and WPS alike.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from docx import Document
from docx.oxml.ns import qn
from docx.shared import Cm, Pt
from docx.table import Table

LATIN_FONT = "Calibri"
EAST_ASIAN_FONT = "Microsoft YaHei"  # Windows; Word, LibreOffice and WPS substitute their own CJK face
PROOFING = {"en": "en-US", "zh": "zh-CN"}
PICTURE_WIDTH = Cm(16)  # A4 less Word's default margins


class WordDocument:
    """One document in `lang` (the proofing language of its text). Blocks are added in reading order."""

    def __init__(self, lang: str = "en", title: str = "") -> None:
        self.document = Document()
        self.document.core_properties.title = title
        self.document.core_properties.language = PROOFING.get(lang, "en-US")
        for name in ("Normal", "Title", "Heading 1", "Heading 2", "Heading 3", "Caption"):
            self._fonts(name)
        self.document.styles["Normal"].font.size = Pt(10.5)

    def _fonts(self, style_name: str) -> None:
        """Latin text in LATIN_FONT, Chinese in EAST_ASIAN_FONT, each proofed in its own language."""
        style = self.document.styles[style_name]
        style.font.name = LATIN_FONT
        properties = style.element.get_or_add_rPr()
        fonts = properties.get_or_add_rFonts()
        fonts.set(qn("w:eastAsia"), EAST_ASIAN_FONT)
        language = properties.find(qn("w:lang"))
        if language is None:
            language = properties.makeelement(qn("w:lang"), {})
            properties.append(language)
        language.set(qn("w:val"), "en-US")
        language.set(qn("w:eastAsia"), "zh-CN")

    def title(self, text: str) -> None:
        self.document.add_heading(text, level=0)

    def heading(self, text: str, level: int = 1) -> None:
        self.document.add_heading(text, level=level)

    def paragraph(self, *runs: str | tuple[str, str], style: str | None = None) -> None:
        """One paragraph of runs: a plain string, or (text, "b") bold, (text, "i") italic, (text, "bi")."""
        paragraph = self.document.add_paragraph(style=style)
        for run in runs:
            text, how = (run, "") if isinstance(run, str) else run
            if not text:
                continue
            added = paragraph.add_run(text)
            added.bold = "b" in how or None
            added.italic = "i" in how or None

    def bullets(self, items: Sequence[str]) -> None:
        for item in items:
            self.document.add_paragraph(item, style="List Bullet")

    def pairs(self, rows: Sequence[tuple[str, str]]) -> Table:
        """Labels (bold) and their values, two columns."""
        table = self.document.add_table(rows=0, cols=2)
        table.style = "Table Grid"
        for name, value in rows:
            cells = table.add_row().cells
            cells[0].paragraphs[0].add_run(name).bold = True
            cells[1].text = value
        return table

    def table(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:
        """A table with a bold header row (repeated on each page the table spans)."""
        table = self.document.add_table(rows=1, cols=len(header))
        table.style = "Table Grid"
        for cell, name in zip(table.rows[0].cells, header, strict=True):
            cell.paragraphs[0].add_run(name).bold = True
        header_row = table.rows[0]._tr.get_or_add_trPr()
        header_row.append(header_row.makeelement(qn("w:tblHeader"), {qn("w:val"): "true"}))
        for row in rows:
            for cell, value in zip(table.add_row().cells, row, strict=True):
                cell.text = value
        return table

    def picture(self, png: bytes, caption: str = "") -> None:
        """A chart (PNG bytes) across the text width, its caption under it."""
        self.document.add_picture(io.BytesIO(png), width=PICTURE_WIDTH)
        if caption:
            self.document.add_paragraph(caption, style="Caption")

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        self.document.save(buffer)
        return buffer.getvalue()
