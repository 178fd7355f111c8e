"""The one figures table (shared.figures): labels, units, scales and decimals in English and Chinese,
and every figure key the product can show is in it.

The walk reads the keys where they are made: the experts' key figures (research's expert_views,
from full snapshots and the search dimensions), the evidence cards' figures, the screen's fields,
the trade plan's fields and the data page's; a key the table lacks would print as raw snake_case.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from stockdesk.entrypoints.web.i18n import catalog
from stockdesk.entrypoints.web.pages.data_view import BAR_FIGURES, REPORT_FIGURES, VALUATION_FIGURES
from stockdesk.judge.domain.dtos.trade_plan import TradePlan
from stockdesk.research.application.evidence_cards import cards_for
from stockdesk.research.application.expert_views import key_figures
from stockdesk.research.domain.dtos.screen import SCREEN_FIELDS
from stockdesk.research.domain.dtos.search_dimensions import CATALYST_DIMENSIONS, MACRO_DIMENSIONS
from stockdesk.shared.figures import (
    DASH,
    FIGURES,
    LANGUAGES,
    UnknownFigure,
    figure_label,
    figure_texts,
    format_figure,
    show_figure,
)
from tests.research.test_evidence_cards import financial, technical, valuation

SHARED_I18N = Path(__file__).resolve().parents[2] / "src" / "stockdesk" / "shared" / "i18n"
SNAKE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)+$")
PLAN_FIGURES = ("entry_price", "stop_loss_price", "take_profit_price", "stop_distance_pct",
                "target_distance_pct", "risk_reward", "atr", "swing_low", "swing_high")  # fmt: skip


def emitted_keys() -> set[str]:
    """Every figure key the experts' figures, the cards, the screen, the plan and the data page show."""
    snapshots = {
        "valuation_modeler": valuation(),
        "technical_analyst": technical(),
        "financial_auditor": financial(),
    }
    keys: set[str] = set()
    for expert, snapshot in snapshots.items():
        keys |= set(key_figures(expert, snapshot.model_dump(mode="json")))
        for card in cards_for(expert, snapshot):
            keys |= set(card.figures)
    dimensions = [{"name": d.name, "items": [{}]} for d in (*MACRO_DIMENSIONS, *CATALYST_DIMENSIONS)]
    keys |= set(key_figures("macro_intelligence", {"has_information": True, "dimensions": dimensions}))
    keys |= {f.name for f in SCREEN_FIELDS}
    assert set(PLAN_FIGURES) <= set(TradePlan.model_fields)
    keys |= set(PLAN_FIGURES)
    keys |= {key for table in (BAR_FIGURES, VALUATION_FIGURES, REPORT_FIGURES) for key, _ in table}
    return keys


def test_every_key_the_cards_figures_screen_plan_and_data_page_emit_is_in_the_table() -> None:
    keys = emitted_keys()
    assert {"graham_safety_margin", "cash_quality", "roe", "pe_ttm", "volume", "has_information"} <= keys
    assert "monetary_policy_results" in keys and "earnings_expectations_results" in keys  # the walk ran
    missing = sorted(k for k in keys if k not in FIGURES)
    assert not missing, f"figure keys without a unit in shared.figures.FIGURES: {missing}"
    for key in keys:
        for lang in LANGUAGES:
            label = figure_label(key, lang)
            assert label and not SNAKE.match(label), f"{key} ({lang}) is labelled {label!r}"


def test_both_languages_label_every_key_and_the_web_catalogue_has_them() -> None:
    texts = {lang: json.loads((SHARED_I18N / lang / "figures.json").read_text("utf-8")) for lang in LANGUAGES}
    assert set(texts["en"]) == set(texts["zh"]), set(texts["en"]) ^ set(texts["zh"])
    assert all(text.strip() for text in texts["zh"].values())
    for key in FIGURES:
        assert f"figure.{key}" in texts["en"], f"no label for {key}"
        assert re.search(r"[\u4e00-\u9fff]", texts["zh"][f"figure.{key}"]), f"{key}: no Chinese label"
    assert catalog("zh")["figure.roe"] == figure_texts("zh")["figure.roe"]  # one catalogue for the pages


@pytest.mark.parametrize(
    ("key", "value", "lang", "currency", "shown"),
    [
        ("volume", 7647805.0, "en", None, "7.65M shares"),  # the "Volume 7647805.0"
        ("volume", 7647805.0, "zh", None, "764.78万股"),
        ("volume", 950, "en", None, "950 shares"),  # small: no scale
        ("amount", 1.2345e10, "en", "CNY", "12.35B CNY"),
        ("amount", 1.2345e10, "zh", "CNY", "123.45亿元"),
        ("market_cap", 2.5e12, "zh", "CNY", "2.50万亿元"),
        ("total_mv", 1234.56, "en", "CNY", "123.46B CNY"),  # the snapshots' 亿
        ("total_mv", 1234.56, "zh", "USD", "1,234.56亿美元"),
        ("close", 1650.5, "en", "CNY", "1,650.50 CNY"),
        ("close", 12.86, "zh", "HKD", "12.86港元"),
        ("close", 12.86, "en", None, "12.86"),  # no currency known: the number alone
        ("pe_ttm", 23.456, "en", None, "23.46×"),
        ("graham_safety_margin", -10.9, "en", None, "-10.9%"),  # the issue's `graham_safety_margin -10.9`
        ("graham_safety_margin", 3.0, "zh", None, "+3.0%"),
        ("roe", 4.46, "en", None, "4.46%"),  # already in percent: not x100
        ("cash_quality", -4.6, "en", None, "-4.60×"),
        ("position_percent", 0.15, "en", None, "15.0%"),  # a fraction: x100
        ("hit_rate", 0.08, "zh", None, "8.0%"),
        ("excess_return", -0.0123, "en", None, "-1.23%"),
        ("stop_distance_pct", -4.95, "en", None, "-4.95%"),
        ("change_20d_pct", -0.001, "en", None, "0.00%"),  # rounds to zero: no sign, never -0.00
        ("pe_percentile", 22, "en", None, "22nd percentile"),
        ("pe_percentile", 13, "en", None, "13th percentile"),
        ("pe_percentile", 22, "zh", None, "第 22 百分位"),
        ("rsi14", 71.26, "en", None, "71.3"),
        ("macd_hist", -0.0031, "en", None, "-0.0031"),
        ("bars", 250, "zh", None, "250 个交易日"),
        ("monetary_policy_results", 3, "en", None, "3 results"),
        ("has_information", False, "zh", None, "否"),
        ("has_information", True, "en", None, "yes"),
        ("period", "2024Q1", "en", None, "2024Q1"),
    ],
)
def test_a_figure_is_written_with_its_unit_scale_and_decimals(
    key: str, value: Any, lang: str, currency: str | None, shown: str
) -> None:
    assert format_figure(key, value, lang, currency) == shown


@pytest.mark.parametrize("missing", [None, "N/A", "", float("nan"), float("inf")])
def test_a_missing_value_is_a_dash(missing: Any) -> None:
    assert format_figure("pe_ttm", missing) == DASH
    assert format_figure("close", missing, "zh", "CNY") == DASH


def test_labels_are_in_the_asked_language() -> None:
    assert figure_label("graham_safety_margin", "en") == "Graham safety margin"
    assert figure_label("graham_safety_margin", "zh") == "格雷厄姆安全边际"
    assert figure_label("volume", "fr") == "Volume"  # an unknown language reads English


def test_an_unknown_key_fails_loudly_and_is_never_shown_as_snake_case(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with pytest.raises(UnknownFigure):
        format_figure("no_such_figure", 1.0)
    with pytest.raises(UnknownFigure):
        figure_label("no_such_figure", "zh")
    with caplog.at_level(logging.WARNING, logger="stockdesk.shared.figures"):
        shown = show_figure("no_such_figure", 1.5)
    assert shown.name == "No such figure" and shown.value == "1.5"
    assert "no_such_figure" in caplog.text  # logged, not silent


def test_a_shown_figure_carries_its_key_label_and_text() -> None:
    shown = show_figure("volume", 7647805.0, "en")
    assert (shown.key, shown.name, shown.value) == ("volume", "Volume", "7.65M shares")
