"""The session's charts: the research charts, the trade plan's levels on the price chart, the stances.

Charts are an extra: whatever fails here is recorded in errors["charts"] and the session goes on.
The specs are stored as JSON dicts (ResearchSession.charts) and drawn by the reports and the web UI.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from typing import Any, TypeVar

import numpy as np

from stockdesk.coordinator.application.gateways import ResearchGateway
from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, ChartWords, ReferenceLine
from stockdesk.shared.errors import one_line
from stockdesk.shared.numbers import finite_number
from stockdesk.shared.wording import UnknownText, say

T = TypeVar("T")
PRICE_CHART = "price"
STANCE_COLORS = {"bullish": "#2e7d32", "bearish": "#c62828", "neutral": "#9e9e9e"}
# the plan's three levels, named as each action means them (judge's TradePlan): `chart.plan.<action>.<style>`
PLAN_LEVELS = (("entry_price", "entry"), ("stop_loss_price", "stop"), ("take_profit_price", "target"))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def plan_lines(verdict: Mapping[str, Any], w: ChartWords | None = None) -> list[ReferenceLine]:
    """Entry, stop and target of the verdict's trade plan; levels that are missing or not > 0 are left out."""
    w = w or ChartWords()
    plan = _mapping(verdict.get("trade_plan"))
    action = str(plan.get("action") or verdict.get("action") or "").upper()
    action = action if action in ("BUY", "SELL", "HOLD") else "BUY"
    lines = []
    for key, style in PLAN_LEVELS:
        value = finite_number(plan.get(key))
        if value is not None and value > 0:
            lines.append(ReferenceLine(label=w(f"chart.plan.{action}.{style}"), value=value, style=style))
    return lines


def with_plan_lines(chart: dict[str, Any], verdict: Mapping[str, Any]) -> dict[str, Any]:
    """The price chart with the plan's levels on its price panel, and a caption that says so (in
    every language the chart's table holds)."""
    spec = ChartSpec.model_validate(chart)
    w = ChartWords(spec.i18n)
    lines = plan_lines(verdict, w)
    if not lines:
        return chart
    price = spec.panels[0]
    ratio = finite_number(_mapping(verdict.get("trade_plan")).get("risk_reward"))

    def caption(lang: str) -> str:
        shown = spec.caption if lang == "en" else w.table[lang].get(spec.caption, spec.caption)
        labels = [line.label if lang == "en" else w.table[lang].get(line.label, line.label) for line in lines]
        levels = " / ".join(f"{label} {line.value:.2f}" for label, line in zip(labels, lines, strict=True))
        end = (
            say("chart.plan.ratio", lang, ratio=f"{ratio:.2f}")
            if ratio is not None
            else say("chart.plan.end", lang)
        )
        return say("chart.plan.caption", lang, caption=shown.rstrip(".。"), levels=levels, ratio=end)

    panel = price.model_copy(update={"lines": [*price.lines, *lines]})
    update = {"panels": [panel, *spec.panels[1:]], "caption": w.text(caption)}
    return spec.model_copy(update={**update, "i18n": w.i18n}).model_dump(mode="json")


def stance_chart(aggregation: Mapping[str, Any]) -> ChartSpec | None:
    """One bar per expert: + confidence when bullish, - when bearish; a dot on zero when neutral."""
    digests = [d for d in aggregation.get("digests") or [] if isinstance(d, Mapping) and d.get("expert")]
    if not digests:
        return None
    known = _mapping(aggregation.get("stances"))
    experts = [str(d["expert"]) for d in digests]
    stances = np.array(
        [known.get(e) or str(d.get("stance") or "neutral") for e, d in zip(experts, digests, strict=True)]
    )
    confidence = np.clip([finite_number(d.get("confidence")) or 0.0 for d in digests], 0.0, 1.0)
    signed = np.select([stances == "bullish", stances == "bearish"], [confidence, -confidence], 0.0)
    series = [
        ChartSeries(
            name=name,
            kind="scatter" if name == "neutral" else "bar",
            stack=None if name == "neutral" else "stance",
            values=np.where(stances == name, signed.round(3), np.nan).tolist(),
            color=color,
        )
        for name, color in STANCE_COLORS.items()
        if (stances == name).any()
    ]
    w = ChartWords()
    for name in STANCE_COLORS:
        w(f"stance.{name}")

    def caption(lang: str) -> str:
        counts = ", " if lang == "en" else say("list.separator", lang)
        counts = counts.join(
            say("chart.stances.count", lang, n=int((stances == s).sum()), stance=say(f"stance.{s}", lang))
            for s in STANCE_COLORS
        )
        return say("chart.stances.caption", lang, counts=counts)

    short = [e.split("_")[0] for e in experts]
    return ChartSpec(
        id="stances",
        title=w("chart.stances.title"),
        caption=w.text(caption),
        x=[w.text(lambda lang, e=e: _short_name(e, lang)) for e in short],
        x_kind="category",
        panels=[
            ChartPanel(
                y_label=w("chart.stances.axis"),
                series=series,
                lines=[ReferenceLine(label=w("chart.zero"), value=0.0, style="zero")],
                y_min=-1.05,
                y_max=1.05,
            )
        ],
        i18n=w.i18n,
    )


def _short_name(name: str, lang: str) -> str:
    """An expert's short name on the stances chart's axis (valuation, technical, ...)."""
    try:
        return say(f"chart.expert.{name}", lang)
    except UnknownText:
        return name


def _guarded(problems: list[str], name: str, make: Callable[[], T], fallback: T) -> T:
    try:
        return make()
    except Exception as exc:  # a chart is an extra: record it, the session goes on
        problems.append(f"{name}: {one_line(exc)}")
        return fallback


async def attach_charts(
    research: ResearchGateway, symbol: str, as_of: date | None, final: Mapping[str, Any]
) -> dict[str, Any]:
    """The graph's final state plus "charts"; a failure goes to errors["charts"], never up."""
    charts: list[dict[str, Any]] = []
    problems: list[str] = []
    try:
        built, failed = await research.build_charts(symbol, as_of)
        charts.extend(built)
        problems.extend(f"{name}: {why}" for name, why in failed.items())
    except Exception as exc:
        problems.append(f"research charts: {one_line(exc)}")
    verdict = _mapping(final.get("verdict"))
    charts = _guarded(
        problems,
        "trade plan levels",
        lambda: [with_plan_lines(c, verdict) if c.get("id") == PRICE_CHART else c for c in charts],
        charts,
    )
    stances = _guarded(problems, "stances", lambda: stance_chart(_mapping(final.get("aggregation"))), None)
    if stances is not None:
        charts.append(stances.model_dump(mode="json"))
    errors = dict(final.get("errors") or {})
    if problems:
        errors["charts"] = "; ".join(problems)
    return {**final, "charts": charts, "errors": errors}
