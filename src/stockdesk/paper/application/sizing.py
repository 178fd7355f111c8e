"""From a day's verdicts to orders: the book's sizing rule.

Equal weight among the day's BUY verdicts, capped per name: a BUY on a name the book does not hold
targets min(1 / number of BUY verdicts that day, max_weight) of the equity; a BUY on a held name keeps
it (no daily top-up); a SELL on a held name exits it (target 0); a HOLD, a SELL on a name not held,
or no verdict (no data that day) is no order. When cash does not cover every buy, the execution
module scales the buys down alike (then whole lots).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date

from stockdesk.paper.domain.models import DayOrder, DayVerdict, PaperBook


def orders_for(
    book: PaperBook, day: date, verdicts: Sequence[DayVerdict], held: Iterable[str]
) -> list[DayOrder]:
    holding = set(held)
    buys = [v.symbol for v in verdicts if v.action == "BUY"]
    weight = min(1.0 / len(buys), book.max_weight) if buys else 0.0
    orders = []
    for verdict in verdicts:
        if verdict.action == "BUY" and verdict.symbol not in holding:
            orders.append(
                DayOrder(day=day, symbol=verdict.symbol, target_weight=round(weight, 10), action="BUY")
            )
        elif verdict.action == "SELL" and verdict.symbol in holding:
            orders.append(DayOrder(day=day, symbol=verdict.symbol, target_weight=0.0, action="SELL"))
    return orders
