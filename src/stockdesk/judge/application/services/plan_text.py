"""The verdict's text fields (entry, stop, target of judge-design.md, Decision 4) written by code
from the trade plan, in both languages (the shared catalogue's `verdict.*`).

The fields themselves keep the Chinese the prompts and older sessions read; `plan_i18n` is what the
verdict stores beside them (`i18n`), and what a page or report in either language shows.
"""

from __future__ import annotations

from stockdesk.judge.domain.dtos.trade_plan import TradePlan
from stockdesk.shared.wording import Bilingual, both, say

TEXT_FIELDS = ("entry_strategy", "stop_loss", "take_profit")


def plan_texts(plan: TradePlan | None, lang: str = "zh") -> dict[str, str]:
    """entry_strategy, stop_loss and take_profit in `lang`, each quoting only the plan's numbers."""
    if plan is None:
        return dict.fromkeys(TEXT_FIELDS, say("verdict.no_plan", lang))
    day = (
        say("verdict.day.close_of", lang, day=plan.reference_date)
        if plan.reference_date
        else say("verdict.day.last_close", lang)
    )
    values = {
        "entry": f"{plan.entry_price:g}",
        "stop": f"{plan.stop_loss_price:g}",
        "target": f"{plan.take_profit_price:g}",
        "down": f"{plan.stop_distance_pct:g}",
        "up": f"{plan.target_distance_pct:g}",
        "rr": f"{plan.risk_reward:g}",
        "position": f"{plan.position_percent:.1%}",
        "day": day,
    }
    action = plan.action.value
    return {
        field: say(f"verdict.{action}.{part}", lang, **values)
        for field, part in zip(TEXT_FIELDS, ("entry", "stop", "target"), strict=True)
    }


def plan_i18n(plan: TradePlan | None) -> Bilingual:
    """The three text fields in every language: what the verdict stores as its `i18n`."""
    return both(lambda lang: plan_texts(plan, lang))
