"""A report's words: every heading and label from the shared catalogue in one language.

Shared by the templates (HTML, Markdown) and the Word builder, which print the same words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.wording import LANGUAGES, UnknownText, say, shared_texts


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
