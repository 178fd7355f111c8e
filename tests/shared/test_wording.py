"""The shared catalogue (shared/i18n) and a chart's texts in every language (shared/charts/words.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, ChartWords, Point, spec_in_language
from stockdesk.shared.wording import LANGUAGES, UnknownText, say

SHARED = Path(__file__).resolve().parents[2] / "src" / "stockdesk" / "shared" / "i18n"
CJK = re.compile(r"[\u4e00-\u9fff]")
# texts whose languages fill in different values, on purpose (the caller gives both)
OWN_PLACEHOLDERS = {"figure.unit.percentile": "English writes an ordinal (35th), Chinese the number"}


@pytest.mark.parametrize("name", sorted(p.name for p in (SHARED / "en").glob("*.json")))
def test_every_shared_file_has_the_same_keys_and_placeholders_in_both_languages(name: str) -> None:
    texts = {lang: json.loads((SHARED / lang / name).read_text("utf-8")) for lang in LANGUAGES}
    assert texts["en"].keys() == texts["zh"].keys(), texts["en"].keys() ^ texts["zh"].keys()
    for key, english in texts["en"].items():
        chinese = texts["zh"][key]
        assert chinese.strip(), key
        if key not in OWN_PLACEHOLDERS:
            assert set(re.findall(r"{(\w+)}", english)) == set(re.findall(r"{(\w+)}", chinese)), key


def test_a_text_is_filled_in_and_an_unknown_key_is_an_error() -> None:
    assert say("verdict.support", "en", agreeing=2, voices=6, stance="bullish") == "2 of 6 voices bullish"
    assert say("verdict.support", "zh", agreeing=2, voices=6, stance="看多") == "6 个观点中 2 个看多"
    with pytest.raises(UnknownText):
        say("no.such.text")


def test_a_chart_is_written_in_english_and_shown_in_chinese_from_its_table() -> None:
    w = ChartWords()
    spec = ChartSpec(
        id="stances",
        title=w("chart.stances.title"),
        caption=w.text(lambda lang: say("chart.stances.caption", lang, counts="1")),
        x=[w("chart.expert.valuation"), w("chart.expert.technical")],
        x_kind="category",
        panels=[
            ChartPanel(
                y_label=w("chart.stances.axis"),
                series=[ChartSeries(name=w("stance.bullish"), values=[0.5, None])],
                points=[Point(label=w("chart.zero"), x="valuation", y=0.5)],
            )
        ],
        i18n=w.i18n,
    )
    assert spec.title == "Expert stances and confidence" and not CJK.search(
        spec.model_dump_json(exclude={"i18n"})
    )
    shown = spec_in_language(spec.model_dump(mode="json"), "zh")
    assert shown["title"] == "专家立场与置信度" and shown["x"] == ["估值", "技术"]
    panel = shown["panels"][0]
    assert panel["y_label"] == "带方向的置信度" and panel["series"][0]["name"] == "看多"
    assert panel["points"][0] == {**panel["points"][0], "label": "零轴", "x": "估值"}  # on its worded x
    assert "i18n" not in shown
    english = spec_in_language(spec.model_dump(mode="json"), "en")
    assert english == spec.model_dump(mode="json", exclude={"i18n"})


def test_a_chart_stored_without_a_table_shows_as_it_was_written() -> None:
    old = ChartSpec(id="price", title="600001.SH price", caption="Close 20.00.", x=["2024-06-28"],
                    panels=[ChartPanel(series=[ChartSeries(name="close", values=[20.0])])])  # fmt: skip
    stored = old.model_dump(mode="json", exclude={"i18n"})
    assert spec_in_language(stored, "zh") == stored
