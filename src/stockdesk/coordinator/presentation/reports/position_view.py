"""The report's "Your position" section: the holding the verdict was given and the holder's plan,
every figure written by the one figures table (`shared.figures`) in the report's language.

Read from the session's verdict (`holding`, `holder_plan`, judge's Holding and HolderPlan dumped);
a verdict without them (a symbol not held, a session from before holdings) has no section.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stockdesk.coordinator.presentation.reports import formatting as fmt
from stockdesk.coordinator.presentation.reports.view_model import Pair, PositionCard
from stockdesk.portfolio.application import HELD_FIGURES
from stockdesk.shared.figures import figure_label, format_figure
from stockdesk.shared.numbers import finite_number
from stockdesk.shared.wording import in_language, say

TONES = {"ADD": "buy", "HOLD": "hold", "TRIM": "sell", "EXIT": "sell"}
# a held position's figures as the holdings page shows them, then what the holder's plan adds
POSITION_FIGURES = (
    *HELD_FIGURES,
    "days_held",
    "book_weight",
    "sellable_shares",
    "locked_shares",
)
PRICED = {
    "cost_price",
    "cost_basis",
    "close",
    "market_value",
    "unrealised_pnl",
    "break_even",
    "trade_value",
}


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _figure(key: str, value: Any, lang: str, currency: str | None) -> Pair:
    return Pair(figure_label(key, lang), format_figure(key, value, lang, currency if key in PRICED else None))


def _shares(plan: Mapping[str, Any], lang: str) -> str:
    shares = format_figure("trade_shares", plan.get("shares"), lang)
    lots, lot = int(plan.get("lots") or 0), int(plan.get("lot_size") or 1)
    odd = finite_number(plan.get("odd_shares")) or 0.0
    if odd > 0:
        shown = format_figure("trade_shares", odd, lang)
        return say("holder.report.lots_odd", lang, shares=shares, lots=lots, lot=lot, odd=shown)
    return say("holder.report.lots", lang, shares=shares, lots=lots, lot=lot)


def _level(key: str, price: Any, distance: Any, lang: str, currency: str | None) -> str:
    shown = format_figure(key, price, lang, currency)
    moved = finite_number(distance)
    return f"{shown} ({format_figure('stop_distance_pct', moved, lang)})" if moved is not None else shown


def _plan_rows(plan: Mapping[str, Any], lang: str, currency: str | None) -> list[Pair]:
    rows: list[Pair] = []
    if plan.get("action") != "HOLD":  # a HOLD trades nothing
        rows.append(Pair(figure_label("trade_shares", lang), _shares(plan, lang)))
    stop = plan.get("stop")
    if stop is not None:
        distance = finite_number(plan.get("stop_distance_pct"))
        level = (
            say("holder.report.crossed", lang, stop=format_figure("holder_stop", stop, lang, currency))
            if plan.get("stop_crossed")
            else _level("holder_stop", stop, -distance if distance is not None else None, lang, currency)
        )
        rows.append(Pair(figure_label("holder_stop", lang), level))
    if plan.get("target") is not None:
        shown = _level("holder_target", plan.get("target"), plan.get("target_distance_pct"), lang, currency)
        rows.append(Pair(figure_label("holder_target", lang), shown))
    rows.append(_figure("break_even", plan.get("break_even"), lang, currency))
    if plan.get("action") != "HOLD":
        rows.append(_figure("trade_value", plan.get("trade_value"), lang, currency))
        cost = format_figure("estimated_cost", plan.get("estimated_cost"), lang, currency)
        rate = format_figure("cost_rate", plan.get("cost_rate"), lang)
        rows.append(Pair(figure_label("estimated_cost", lang), f"{cost} ({rate})"))
    return rows


def position_card(verdict: Mapping[str, Any], lang: str, currency: str | None) -> PositionCard | None:
    """The section of a verdict given a holding; None when it had none."""
    holding, plan = _dict(verdict.get("holding")), _dict(verdict.get("holder_plan"))
    if not holding or not plan:
        return None
    position = [_figure(key, holding.get(key), lang, currency) for key in POSITION_FIGURES]
    opened = holding.get("opened_at") or say("holder.report.unknown", lang)
    position.insert(8, Pair(say("holder.report.opened", lang), fmt.text(opened)))
    action = fmt.text(plan.get("action")).upper()
    return PositionCard(
        action=action,
        base_action=fmt.text(plan.get("base_action")).upper(),
        tone=TONES.get(action, "none"),
        reason=fmt.text(in_language(plan, "reason", lang)),
        position=position,
        plan=_plan_rows(plan, lang, currency),
    )
