"""What the page-language walker reads: a page's visible text without its user data, and the words
of the other language in it.

User data is marked in the templates, never guessed here: an element with `translate="no"` (names,
symbols, ids, news titles, the models' prose, stored error records, configured values) or a `<code>`
element is left out with all it holds, and so is a `backticked` command in a catalogue text; an
element whose `lang` names another language says so on purpose (the language switch). What is left
is what the UI itself says: text nodes, the `title`, `aria-label` and `alt` attributes, and the
texts of every chart a page embeds (`data-spec`: title, caption, axis labels, legend and line
labels, category x values), which charts.js prints. An attribute or the `<title>` cannot hold
markup: user data the page marks elsewhere (the symbol of its heading, an id) is taken out of them.
A `placeholder` is not read: it shows an example of what to type (a symbol, a time zone), data.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

SKIPPED_TAGS = {"script", "style", "code"}
VOID_TAGS = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
}  # fmt: skip
SHOWN_ATTRIBUTES = ("title", "aria-label", "alt")
COMMAND = re.compile(r"`[^`]*`")
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:/[A-Za-z][A-Za-z0-9]*)*")

# Latin words a Chinese page may show: the abbreviations and units Chinese financial software writes
# in Latin letters itself (同花顺, 东方财富 and the exchanges' own pages write P/E, MA20, MACD, ROE;
# A股; report periods 2024Q1, 2023H1, 2023A), the statistics' own symbols (IC, ECE, PBO, DSR, Z 分数,
# N 个交易日), computing terms Chinese UIs keep (LLM, token, CPU, URL, KB/MB), currency codes, UTC,
# the date pattern, file formats; and proper names that have no Chinese name (the product, the data
# sources and tools the UI names, Brier of the Brier score). Nothing else.
ZH_ALLOWED = frozenset(
    {
        # valuation, accounting and technical indicators (MA20, ATR(14): digits after letters are allowed)
        "P/E", "P/B", "PE", "PB", "PE/PB", "TTM", "PEG", "ROE", "ROIC", "EPS", "BPS",
        "MA", "RSI", "MACD", "DIF", "DEA", "ATR", "ADX", "BOLL", "VWAP",
        # markets and report periods: A股, 2024Q1, 2023H1, 2023A (annual)
        "A", "Q", "H",
        # statistics: rank IC, its t value, expected calibration error, overfitting and deflated Sharpe
        "IC", "t", "ECE", "PBO", "DSR", "SR", "N", "Z",
        # computing
        "LLM", "API", "REST", "ETA", "ID", "token", "Token", "CPU", "URL", "SHA", "KB", "MB", "GB",
        # units, time, formats
        "CNY", "USD", "HKD", "UTC", "YYYY", "MM", "DD", "CSV", "JSON", "HTML", "MD", "WAV", "PDF",
        # proper names
        "stockdesk", "Brier", "AkShare", "Tushare", "yfinance", "Yahoo", "Finance", "SEC", "EDGAR",
        "SearXNG", "Ray", "SQLite", "PostgreSQL", "espeak", "ng", "Markdown", "Word", "Chromium",
    }
)  # fmt: skip


def spec_texts(spec: dict[str, Any]) -> list[str]:
    """The words charts.js prints of one ChartSpec."""
    texts = [spec.get("title", ""), spec.get("caption", "")]
    if spec.get("x_kind") == "category":
        texts += [str(x) for x in spec.get("x", [])]
    for panel in spec.get("panels", []):
        texts += [panel.get("y_label", ""), panel.get("y2_label", "")]
        texts += [s.get("name", "") for s in panel.get("series", [])]
        for part in ("lines", "bands", "points", "regions"):
            texts += [item.get("label", "") for item in panel.get(part, [])]
    return [t for t in texts if t and t.strip()]


class VisibleText(HTMLParser):
    """Collects (where, text) of everything shown that is not marked as user data."""

    def __init__(self, lang: str) -> None:
        super().__init__(convert_charrefs=True)
        self.lang = lang
        self.stack: list[tuple[str, bool]] = []
        self.found: list[tuple[str, str]] = []
        self.data: set[str] = set()  # the texts marked as user data

    def _skipped(self, tag: str, attributes: dict[str, str | None]) -> bool:
        inside = bool(self.stack) and self.stack[-1][1]
        other = attributes.get("lang")
        return (
            inside
            or tag in SKIPPED_TAGS
            or attributes.get("translate") == "no"
            or (other is not None and not other.lower().startswith(self.lang))
        )

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        skipped = self._skipped(tag, attributes)
        if not skipped:
            for name in SHOWN_ATTRIBUTES:
                if attributes.get(name):
                    self.found.append((f"<{tag} {name}>", str(attributes[name])))
            if attributes.get("data-spec"):
                spec = json.loads(str(attributes["data-spec"]))
                self.found += [(f"chart {spec.get('id')}", text) for text in spec_texts(spec)]
        if tag not in VOID_TAGS:
            self.stack.append((tag, skipped))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID_TAGS:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                del self.stack[index:]
                return

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if self.stack and self.stack[-1][1]:
            if text:
                self.data.add(text)
            return
        if text:
            where = self.stack[-1][0] if self.stack else "document"
            self.found.append((f"<{where}>", text))


def unmarked(html: str) -> str:
    """The page with the user-data marks of `user_data` taken off (`<span translate="no">x</span>` ->
    `x`), for a test that reads a sentence with a symbol or an id in it."""
    return re.sub(r'<span translate="no">(.*?)</span>', r"\1", html)


def visible_texts(html: str, lang: str) -> list[tuple[str, str]]:
    """(where, text) of what the page shows of its own: commands in backticks taken out, and the
    user data the page marks taken out of what cannot be marked (attributes and the title)."""
    parser = VisibleText(lang)
    parser.feed(html)
    parser.close()
    marked = sorted(parser.data, key=len, reverse=True)
    shown = []
    for where, text in parser.found:
        text = COMMAND.sub(" ", text)
        if where == "<title>" or where.startswith("chart ") or (where.endswith(">") and " " in where):
            # the title, an attribute, a chart's text: they cannot hold markup
            for data in marked:
                text = text.replace(data, " ")
            # a shortened id (the title's 8 characters of the 12 the page marks)
            text = WORD.sub(lambda m: " " if any(m.group() in data for data in marked) else m.group(), text)
        shown.append((where, text))
    return shown


def foreign_words(text: str, lang: str) -> list[str]:
    """What in `text` belongs to the other language: CJK characters on an English page, Latin words
    outside ZH_ALLOWED on a Chinese one."""
    if lang == "en":
        return CJK.findall(text)
    return [w for w in WORD.findall(text) if not _allowed(w) and not all(map(_allowed, w.split("/")))]


def _allowed(word: str) -> bool:
    """An allowed word, digits after its letters allowed (MA20, RSI14, Q1)."""
    return word in ZH_ALLOWED or word.rstrip("0123456789") in ZH_ALLOWED


def offences(html: str, lang: str) -> list[str]:
    """Each shown string holding words of the other language, with where it was found."""
    found = []
    for where, text in visible_texts(html, lang):
        words = foreign_words(text, lang)
        if words:
            found.append(f"{where} {text!r} ({', '.join(dict.fromkeys(words))})")
    return found
