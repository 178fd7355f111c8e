"""The judge prompt's "You hold this symbol" section, worded by code from the shared catalogue.

The model is told the position (quantity, cost, close, unrealised P&L, days held, its weight in the
holdings book, what is sellable today under T+1) so its reasoning can weigh it; it still answers
BUY, HOLD or SELL, which code turns into the holder's action (holder_plan.py). Without a holding
the section is empty: a non-holder's prompt is byte-identical to one made before holdings existed.
"""

from __future__ import annotations

from stockdesk.judge.domain.dtos.holding import Holding
from stockdesk.shared.wording import say


def _number(value: float, decimals: int = 2) -> str:
    return f"{value:,.{decimals}f}"


def _shares(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4f}".rstrip("0").rstrip(".")


def holding_lines(holding: Holding, lang: str = "zh") -> list[str]:
    """The section's lines in `lang` (the header first)."""
    unknown = say("holder.prompt.unknown", lang)
    pct = f"{holding.unrealised_pnl_pct:+.2f}%" if holding.unrealised_pnl_pct is not None else unknown
    days = (
        say("holder.prompt.days", lang, n=holding.days_held)
        if holding.days_held is not None
        else say("holder.prompt.days_unknown", lang)
    )
    return [
        say("holder.prompt.header", lang, as_of=holding.as_of.isoformat()),
        say(
            "holder.prompt.position",
            lang,
            quantity=_shares(holding.quantity),
            cost=_number(holding.cost_price, 3),
            basis=_number(holding.cost_basis),
            close=_number(holding.close),
        ),
        say("holder.prompt.pnl", lang, pnl=f"{holding.unrealised_pnl:+,.2f}", pnl_pct=pct, days=days),
        say(
            "holder.prompt.book",
            lang,
            weight=f"{holding.book_weight:.1%}",
            lot=holding.lot_size,
            sellable=_shares(holding.sellable_shares),
            locked=_shares(holding.locked_shares),
        ),
    ]


def holding_block(holding: Holding | None, lang: str = "zh") -> str:
    """The prompt section (after the lessons); "" without a holding."""
    if holding is None:
        return ""
    return "\n\n" + "\n".join(holding_lines(holding, lang))
