"""UI text in English and Chinese: the browser's language picks, the `lang` cookie (the switch) overrides.

Catalogs are `i18n/<lang>/<area>.json` (one file per page area, flat `key: text`), merged at start,
with the figures' namespace `figure.*` (labels and unit words of `shared.figures`, kept beside that
table in `shared/i18n/` because the report, written outside the web app, reads it too).
A key missing from Chinese falls back to English; a key missing everywhere shows as itself, so a
typo is visible on the page and caught by the catalog test rather than hidden.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from starlette.requests import Request

from stockdesk.shared.figures import figure_texts

LANGUAGES = ("en", "zh")
DEFAULT = "en"
LANG_COOKIE = "lang"
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}


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
        return text.format(**values) if values else text
