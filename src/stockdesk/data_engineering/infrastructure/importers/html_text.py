"""HTML documents (SEC filings) -> clean, readable text, with the stdlib `html.parser`.

Filings are inline-XBRL XHTML written by tools like Workiva: every paragraph is a `<div>` of
`<span>`s, tables put `$`, the number and `)` in cells of their own, and a hidden `<ix:header>`
carries thousands of XBRL facts nobody reads. So: script, style, head, `ix:header` and anything
styled `display:none` are dropped; block elements end a paragraph (a blank line); a table row is one
line with its non-empty cells joined by " | " (a lone `$` joins the next cell, a lone `)` or `%` the
previous one); whitespace inside a paragraph collapses to single spaces. lxml/bs4 are not project
dependencies, so nothing here needs them.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

PARAGRAPH = "\n\n"
LINE = "\n"
SKIPPED = {"script", "style", "head", "template", "noscript", "ix:header"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
BLOCKS = {
    "address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt", "figcaption",
    "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
    "nav", "ol", "p", "pre", "section", "table", "ul", "caption", "body", "html",
}  # fmt: skip
CELLS = {"td", "th"}
_SPACES = re.compile(r"\s+")
_INVISIBLE = re.compile("[\u200b\u200c\u200d\ufeff]")
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.IGNORECASE)
_BLANK_LINES = re.compile(r"\n{3,}")


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self._skip_tag: str | None = None  # root of the subtree being dropped
        self._skip_depth = 0  # how many `_skip_tag` elements are open inside it
        self._row: list[str] | None = None  # cells of the table row being read
        self._cell: list[str] | None = None

    # ---- dropped subtrees --------------------------------------------------------------------
    def _starts_skip(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        if tag in VOID:
            return False
        if tag in SKIPPED:
            return True
        style = next((value for name, value in attrs if name == "style" and value), "")
        return bool(_HIDDEN_STYLE.search(style))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._skip_tag is not None:
            self._skip_depth += tag == self._skip_tag
            return
        if self._starts_skip(tag, attrs):
            self._skip_tag, self._skip_depth = tag, 1
            return
        if tag == "tr":
            self._end_row()
            self._row = []
        elif tag in CELLS:
            self._end_cell()
            self._cell = []
        elif tag == "br":
            self._emit(" " if self._cell is not None else LINE)
        elif tag in BLOCKS:
            self._emit(" " if self._cell is not None else PARAGRAPH)

    def handle_endtag(self, tag: str) -> None:
        if self._skip_tag is not None:
            if tag == self._skip_tag:
                self._skip_depth -= 1
                if self._skip_depth == 0:
                    self._skip_tag = None
            return
        if tag in CELLS:
            self._end_cell()
        elif tag == "tr":
            self._end_row()
        elif tag == "table":
            self._end_row()
            self._emit(PARAGRAPH)
        elif tag in BLOCKS:
            self._emit(" " if self._cell is not None else PARAGRAPH)

    def handle_data(self, data: str) -> None:
        if self._skip_tag is not None:
            return
        text = _SPACES.sub(" ", _INVISIBLE.sub("", data))
        if self._row is not None and self._cell is None:
            return  # whitespace between cells
        self._emit(text)

    # ---- output --------------------------------------------------------------------------------
    def _emit(self, text: str) -> None:
        (self._cell if self._cell is not None else self.out).append(text)

    def _end_cell(self) -> None:
        if self._cell is None:
            return
        text = " ".join("".join(self._cell).split())
        self._cell = None
        if self._row is None:
            self.out.append(text + " ")
        elif text:
            self._row.append(text)

    def _end_row(self) -> None:
        self._end_cell()
        if self._row is None:
            return
        cells, self._row = merge_cells(self._row), None
        if cells:
            self.out.append(LINE + " | ".join(cells))

    def text(self) -> str:
        self._end_row()
        return normalize_text("".join(self.out))


def merge_cells(cells: list[str]) -> list[str]:
    """Cells split for layout put back together: `$` + `1,234` -> `$1,234`, `(5` + `)` -> `(5)`."""
    merged: list[str] = []
    carry = ""
    for cell in cells:
        if cell in {"$", "€", "£", "¥"}:
            carry += cell
            continue
        if cell in {")", "%", ")%", "%)"} and merged and not carry:
            merged[-1] += cell
            continue
        merged.append(carry + cell)
        carry = ""
    if carry:
        merged.append(carry)
    return merged


def normalize_text(text: str) -> str:
    """Single spaces inside lines, no blank-only lines, at most one blank line between paragraphs."""
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return _BLANK_LINES.sub(PARAGRAPH, "\n".join(lines)).strip()


def html_to_text(html: str) -> str:
    """Readable text of an HTML document (see the module docstring for what is dropped)."""
    extractor = _TextExtractor()
    extractor.feed(html)
    extractor.close()
    return extractor.text()


def decode_html(raw: bytes) -> str:
    """EDGAR documents are ASCII or UTF-8, older ones Windows-1252: try them in that order."""
    for encoding in ("utf-8", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1")
