"""UI text in English and Chinese: the browser's language picks, the `lang` cookie (the switch) overrides.

Catalogs are `i18n/<lang>/<area>.json` (one file per page area, flat `key: text`), merged at start,
with the figures' namespace `figure.*` (labels and unit words of `shared.figures`, kept beside that
table in `shared/i18n/` because the report, written outside the web app, reads it too).
A key missing from Chinese falls back to English; a key missing everywhere shows as itself, so a
typo is visible on the page and caught by the catalog test rather than hidden.

A value given to a text that is marked as user data (`user_data`: a symbol, an id, a name) keeps its
mark, so the page says in markup which words are the user's (the page-language test reads it).
Errors on pages are worded by their code (`errors.<CODE>`, filled with the error's details, each
marked as user data); a code the catalogue does not word shows the exception's own English on an
English page and a generic sentence naming the code on a Chinese one (the REST API keeps its
English messages).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from markupsafe import Markup, escape
from starlette.requests import Request

from stockdesk.shared.figures import figure_texts

LANGUAGES = ("en", "zh")
DEFAULT = "en"
LANG_COOKIE = "lang"
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}
CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")


# reasons the task system and the server write into a job's or a session's error, by their words
STORED_REASONS = {
    "job cancelled by the user": "reason.cancelled",
    "cancelled by the user": "reason.cancelled",
    "interrupted: the server is stopping": "reason.server_stopping",
    "job interrupted: the server is stopping": "reason.server_stopping",
    "interrupted: the process running it stopped": "reason.process_stopped",
}


def user_data(value: Any) -> Markup:
    """A value that is the user's data, not the UI's words (a symbol, a name, an id, a stored
    record): shown as it is, marked `translate="no"`."""
    return Markup('<span translate="no">{}</span>').format(value)


@cache
def catalog(lang: str) -> dict[str, str]:
    """Every area's texts of one language, and the figures' labels."""
    merged: dict[str, str] = dict(figure_texts(lang))
    folder = resources.files("stockdesk.entrypoints.web") / "i18n" / lang
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            merged.update(json.loads(entry.read_text(encoding="utf-8")))
    return merged


def pick_language(request: Request) -> str:
    """The cookie if set, else the first supported language of Accept-Language, else English."""
    chosen = request.cookies.get(LANG_COOKIE, "")
    if chosen in LANGUAGES:
        return chosen
    ranked: list[tuple[float, str]] = []
    for part in request.headers.get("accept-language", "").split(","):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        ranked.append((quality, tag.strip().lower().split("-")[0]))
    for _, tag in sorted(ranked, key=lambda r: -r[0]):
        if tag in LANGUAGES:
            return tag
    return DEFAULT


class Translator:
    """`t("key", name=value)`: the text in the page's language, `str.format`ted with the arguments."""

    def __init__(self, lang: str):
        self.lang = lang
        self._texts = catalog(lang)
        self._fallback = catalog(DEFAULT)

    def __call__(self, key: str, **values: Any) -> str:
        text = self._texts.get(key) or self._fallback.get(key) or key
        if any(isinstance(v, Markup) for v in values.values()):  # marked data keeps its mark
            return Markup(escape(text)).format(**values)
        return text.format(**values) if values else text

    def has(self, key: str) -> bool:
        return key in self._texts or key in self._fallback

    def data(self, key: str, **values: Any) -> str:
        """`key` with every value marked as user data (a symbol, an id, a date typed in a form)."""
        return self(key, **{k: user_data(v) for k, v in values.items()})

    def word(self, prefix: str, value: Any) -> str:
        """A closed-list value (a verdict, a stance, a mode) by its catalogue word `prefix + value`;
        a value the catalogue does not know is shown as stored, marked as data."""
        key = f"{prefix}{value}"
        return self(key) if self.has(key) else user_data(value)

    def stored(self, text: Any) -> str:
        """A stored reason (a job's or a session's error): the catalogue's words for the reasons the
        system itself records (a cancel, a stop), else the record as it is, marked as data."""
        key = STORED_REASONS.get(str(text).strip())
        return self(key) if key else user_data(text)

    def error(self, code: str, message: str = "", details: Mapping[str, Any] | None = None) -> str:
        """An error as a page says it: `errors.<code>` with the details filled in (marked as user
        data); without that text, the message on an English page (unless it is not English) and
        a generic sentence naming the code otherwise."""
        text = self._texts.get(f"errors.{code}")
        if text:
            values = {
                k: user_data(", ".join(map(str, v)) if isinstance(v, list) else v)
                for k, v in (details or {}).items()
            }
            try:
                return Markup(escape(text)).format(**values)
            except (KeyError, IndexError):  # a detail the text names is missing: the generic sentence
                pass
        if self.lang == DEFAULT and message and not CJK.search(message):
            return message
        return self("errors.generic", code=user_data(code))
