"""A research session as a file: Markdown or HTML from Jinja2 templates, or the whole session as JSON.

The templates only print what reports.view prepared; HTML is autoescaped because expert and
debate text is LLM output and may contain markup, and Markdown escapes the HTML in every value it
prints (`md_text`) for the same reason: a Markdown viewer renders the HTML it finds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from stockdesk.coordinator.application import ResearchSession
from stockdesk.coordinator.presentation.reports.charts_view import chart_views
from stockdesk.coordinator.presentation.reports.view import build_view
from stockdesk.shared.charts import render_png
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.files import private_dir, write_atomic
from stockdesk.shared.wording import LANGUAGES, UnknownText, say, shared_texts

ReportFormat = Literal["md", "html", "json"]
SUFFIXES: dict[str, ReportFormat] = {
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".json": "json",
}
TEMPLATES = {"md": "report.md.j2", "html": "report.html.j2"}


@dataclass(frozen=True)
class ReportWords:
    """The templates' `t`: every word of a report from the shared catalogue in one language.

    `t(key, **values)` is a `report.*` text; `t.data(key, **values)` the same in HTML with its values
    marked as user data; `t.word(prefix, value)` a closed-list value (an action, a state, a node) in
    the report's language, kept as stored in English, where the report files always printed the
    stored value; `t.knows(key)` whether the catalogue words `key`."""

    lang: str = "en"

    def __call__(self, key: str, **values: Any) -> str:
        return say(key, self.lang, **values)

    def word(self, prefix: str, value: object) -> str:
        shown = str(value)
        if self.lang == "en":
            return shown
        try:
            return say(f"{prefix}{shown}", self.lang)
        except UnknownText:
            return shown

    def data(self, key: str, **values: Any) -> Markup:
        """An HTML text whose values are user data (a symbol): each marked `translate="no"`."""
        marked = {k: Markup('<span translate="no">{}</span>').format(v) for k, v in values.items()}
        return Markup(escape(say(key, self.lang))).format(**marked)

    def marked(self, text: str, symbol: str) -> Markup:
        """HTML text (a chart's title) with the symbol in it marked as user data. The drawing beside
        it is marked whole: its words are the title's and the caption's, drawn as paths."""
        parts = [escape(part) for part in str(text).split(symbol)] if symbol else [escape(text)]
        return Markup(Markup('<span translate="no">{}</span>').format(symbol)).join(parts)

    def experts(self, names: list[str]) -> str:
        """Experts by name, listed: as stored in English (as the report files wrote them), else the
        catalogue's names."""
        return say("list.separator", self.lang).join(self.word("analyze.expert.", n) for n in names)

    def knows(self, key: str) -> bool:
        return key in shared_texts(self.lang) or key in shared_texts("en")


def report_language(lang: str) -> str:
    """A report's language as asked (`--lang`, a page's language): one of LANGUAGES, else a 400."""
    if lang not in LANGUAGES:
        raise BadRequestException(
            f"unknown report language '{lang}': choose one of {', '.join(LANGUAGES)}", code="BAD_LANGUAGE"
        )
    return lang


def report_format(path: Path) -> ReportFormat:
    """The format a report path asks for, by its suffix."""
    found = SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise BadRequestException(
            f"cannot tell the report format of '{path.name}': use a .md, .html or .json file",
            code="BAD_REPORT_FORMAT",
        )
    return found


_ENTITY_AMPERSAND = re.compile(r"&(?=#?[0-9A-Za-z]+;)")


def md_text(value: object) -> str:
    """Any value a Markdown report prints, made inert as HTML: news titles, the models' prose and the
    user's names may hold markup, which a Markdown viewer would render (a `<script>`, an `<img
    onerror>`). Every `<` becomes `&lt;`, and an `&` that would start an entity `&amp;`; Markdown
    shows both as written, and nothing else changes (the template's own Markdown stays)."""
    return _ENTITY_AMPERSAND.sub("&amp;", str(value)).replace("<", "&lt;")


def md_cell(value: object) -> str:
    """One Markdown table cell: on one line, and a '|' in the text does not end the cell."""
    return " ".join(str(value).split()).replace("|", "\\|")


@lru_cache(maxsize=len(TEMPLATES))
def report_environment(fmt: str) -> Environment:
    env = Environment(
        loader=PackageLoader("stockdesk.coordinator.presentation.reports", "templates"),
        autoescape=fmt == "html",
        finalize=md_text if fmt == "md" else None,  # Markdown's autoescape: every printed value
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cell"] = md_cell
    return env


def render_report(
    session: ResearchSession,
    fmt: ReportFormat,
    *,
    images: str | None = None,
    track_record: str | None = None,
    lang: str = "en",
) -> str:
    """The report as text, all of it in `lang` but what the models and the user wrote; `images`: the
    folder (relative to a Markdown report) holding its chart PNGs; `track_record`: the desk's
    one-line live track record (the verdict ledger's), printed under the verdict when given."""
    if fmt == "json":
        return session.model_dump_json(indent=2)
    if fmt not in TEMPLATES:
        choices = ", ".join(get_args(ReportFormat))
        raise BadRequestException(
            f"unknown report format '{fmt}'; choose one of: {choices}", code="BAD_REPORT_FORMAT"
        )
    lang = report_language(lang)
    template = report_environment(fmt).get_template(TEMPLATES[fmt])
    return template.render(
        report=build_view(session, lang),
        images=images,
        track_record=track_record,
        t=ReportWords(lang),
        lang=lang,
    )


def write_report(
    session: ResearchSession, out: Path, *, track_record: str | None = None, lang: str = "en"
) -> list[Path]:
    """Write the report to `out` (format by suffix); the paths written, the report first.

    A Markdown report gets its charts as PNG files in `<stem>_files/` beside it, linked relatively,
    written before the report so it never links a missing image. HTML inlines its charts as SVG.
    """
    fmt = report_format(out)
    lang = report_language(lang)
    private_dir(out.parent)
    images: str | None = None
    pictures: list[Path] = []
    drawable = (
        [(c.file, c.spec) for c in chart_views(session, lang) if c.spec is not None] if fmt == "md" else []
    )
    if drawable:
        folder = out.with_name(f"{out.stem}_files")
        private_dir(folder)
        pictures = [write_atomic(folder / name, render_png(spec)) for name, spec in drawable]
        images = quote(folder.name)
    text = render_report(session, fmt, images=images, track_record=track_record, lang=lang)
    write_atomic(out, text.encode("utf-8"))
    return [out, *pictures]
