"""A chart's texts in every language: written once by its builder, shown by a page in its own.

A ChartSpec's texts (title, caption, axis and legend labels, the labels of its lines, bands,
points and regions, category x values) are written in English, which matplotlib draws into the
report files. Its builder writes each of them through a `ChartWords`, which records the same text in
the other languages (the shared catalogue's `chart.*`) in the spec's `i18n` table; a page shows
`spec_in_language(spec, lang)`. A spec stored before the table existed shows as it was written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from stockdesk.shared.wording import LANGUAGES, say

OTHER_LANGUAGES = tuple(lang for lang in LANGUAGES if lang != "en")


class ChartWords:
    """The texts of one chart: `w("chart.key", **values)` or `w.text(write)` give the English and
    remember the other languages; `w.i18n` is the spec's table."""

    def __init__(self, start: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self.table: dict[str, dict[str, str]] = {
            lang: dict((start or {}).get(lang, {})) for lang in OTHER_LANGUAGES
        }

    def text(self, write: Callable[[str], str]) -> str:
        """`write(lang)` is the text in `lang`; the English is returned (what the spec holds)."""
        english = write("en")
        for lang, table in self.table.items():
            table[english] = write(lang)
        return english

    def __call__(self, key: str, **values: Any) -> str:
        return self.text(lambda lang: say(key, lang, **values))

    @property
    def i18n(self) -> dict[str, dict[str, str]]:
        return {lang: dict(table) for lang, table in self.table.items() if table}


def spec_in_language(spec: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """A ChartSpec (as a dict) with its texts in `lang` where its table has them, without the table."""
    shown = {k: v for k, v in spec.items() if k != "i18n"}
    table: Mapping[str, str] = (spec.get("i18n") or {}).get(lang) or {}
    if not table:
        return shown

    def said(text: Any) -> Any:
        return table.get(text, text) if isinstance(text, str) else text

    category = spec.get("x_kind") == "category"
    shown["title"], shown["caption"] = said(spec.get("title")), said(spec.get("caption"))
    if category:
        shown["x"] = [said(x) for x in spec.get("x", [])]
    shown["panels"] = [_panel(panel, said, category) for panel in spec.get("panels", [])]
    return shown


def _panel(panel: Mapping[str, Any], said: Callable[[Any], Any], category: bool) -> dict[str, Any]:
    out = dict(panel)
    for key in ("y_label", "y2_label"):
        if key in out:
            out[key] = said(out[key])
    out["series"] = [{**s, "name": said(s.get("name"))} for s in panel.get("series", [])]
    for part in ("lines", "bands", "points", "regions"):
        out[part] = [{**item, "label": said(item.get("label"))} for item in panel.get(part, [])]
    if category:  # points and regions sit on x values, which are words then
        out["points"] = [{**p, "x": said(p.get("x"))} for p in out["points"]]
        out["regions"] = [
            {**r, "start": said(r.get("start")), "end": said(r.get("end"))} for r in out["regions"]
        ]
    return out
