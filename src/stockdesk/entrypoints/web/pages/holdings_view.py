"""The Holdings page's rows: each position's figures as shown (label, unit, the symbol's listing
currency) from the one formatting table, shared/figures.py."""

from __future__ import annotations

from dataclasses import dataclass

from stockdesk.data_engineering.application import currency_of
from stockdesk.portfolio.application import HELD_FIGURES, HeldPosition
from stockdesk.shared.figures import ShownFigure, show_figure

COLUMNS = (*HELD_FIGURES, "days_held")


@dataclass(frozen=True)
class HoldingRow:
    account: str
    symbol: str
    opened_at: str
    close_date: str
    figures: tuple[ShownFigure, ...]
    gain: bool | None  # the P&L's sign (None: no close to value it)
    quantity: float
    cost_price: float


def holding_rows(positions: list[HeldPosition], lang: str) -> list[HoldingRow]:
    rows = []
    for p in positions:
        currency = currency_of(p.symbol)
        figures = tuple(show_figure(key, getattr(p, key), lang, currency) for key in COLUMNS)
        rows.append(
            HoldingRow(
                account=p.account,
                symbol=p.symbol,
                opened_at=p.opened_at.isoformat() if p.opened_at else "",
                close_date=p.close_date.isoformat() if p.close_date else "",
                figures=figures,
                gain=None if p.unrealised_pnl is None else p.unrealised_pnl >= 0,
                quantity=p.quantity,
                cost_price=p.cost_price,
            )
        )
    return rows


def column_labels(lang: str) -> list[str]:
    return [show_figure(key, None, lang).name for key in COLUMNS]
