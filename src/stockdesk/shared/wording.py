"""Words written outside the web app, in both languages: the shared catalogue, and the sentences code
writes at analysis time, stored in both.

The shared catalogue is `shared/i18n/<lang>/*.json`: the figures' labels (`figure.*`), the verdict's
code-worded lines (`verdict.*`), the code signals' reasons (`signal.*`), the charts' texts
(`chart.*`), the report's sentences (`report.*`) and the strategy lab's run notes (`strategy.*`).
The judge, the chart builders and the report write from it outside the web app; the web catalogue
merges it, so a page's `t()` reads the same words.

A sentence code writes when the verdict is made (a trade plan's lines, a rules verdict's reasoning,
an adjustment) is written then in both languages and stored beside the field it words:
`i18n = {"en": {field: text}, "zh": {field: text}}` (`both`). The field itself keeps the text it
always had: the prompts read it, and a record stored before `i18n` existed has only it, so a page
reads a field through `in_language`, which falls back to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES = ("en", "zh")
Bilingual = dict[str, dict[str, Any]]  # language -> field -> the field's text in that language


class UnknownText(KeyError):
    """A key the shared catalogue does not have in English: add it to `shared/i18n/{en,zh}/`."""


@cache
def shared_texts(lang: str) -> dict[str, str]:
    """Every text of the shared catalogue in one language (one file per namespace)."""
    folder = resources.files("stockdesk.shared") / "i18n" / lang
    merged: dict[str, str] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            merged.update(json.loads(entry.read_text(encoding="utf-8")))
    return merged


def say(key: str, lang: str = "en", **values: Any) -> str:
    """A shared text in `lang` (English when that language lacks it), filled in with `values`."""
    chosen = lang if lang in LANGUAGES else "en"
    text = shared_texts(chosen).get(key) or shared_texts("en").get(key)
    if text is None:
        raise UnknownText(key)
    return text.format(**values) if values else text


def both(write: Callable[[str], Mapping[str, Any]]) -> Bilingual:
    """`write(lang)` for every language: the `i18n` a record stores beside its fields."""
    return {lang: dict(write(lang)) for lang in LANGUAGES}


def in_language(record: Any, field: str, lang: str) -> Any:
    """`field` of a record (a mapping or a model) in `lang`: its stored `i18n` text when it has one,
    else the field as it was stored (a record from before `i18n`, or text that is not code's)."""
    if isinstance(record, Mapping):
        texts, own = record.get("i18n"), record.get(field)
    else:
        texts, own = getattr(record, "i18n", None), getattr(record, field, None)
    worded = texts.get(lang) if isinstance(texts, Mapping) else None
    if isinstance(worded, Mapping) and worded.get(field) not in (None, "", []):
        return worded[field]
    return own
