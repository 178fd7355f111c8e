"""Two research sessions of one symbol side by side: what changed in the verdict and per expert.

Built from the same ReportView the report shows (so a value reads the same in both), plus the
trade plan's levels read from the verdict. The earlier session is `before`, the later `after`;
a row is `changed` when the two texts differ. Comparing two symbols makes no sense: a 400.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from stockdesk.coordinator.application import ResearchSession
from stockdesk.coordinator.presentation.reports import formatting as fmt
from stockdesk.coordinator.presentation.reports.view import build_view
from stockdesk.coordinator.presentation.reports.view_model import ExpertRow, ReportView
from stockdesk.shared.errors import BadRequestException

RowKind = Literal["field", "number"]  # a named field (translated by the page) or a key number's own name
PLAN_LEVELS = (  # (row key, trade plan field)
    ("entry", "entry_price"),
    ("stop", "stop_loss_price"),
    ("target", "take_profit_price"),
    ("risk_reward", "risk_reward"),
)


@dataclass(frozen=True)
class ComparedRow:
    key: str
    before: str
    after: str
    kind: RowKind = "field"

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass(frozen=True)
class ComparedExpert:
    name: str
    title: str
    rows: list[ComparedRow]

    @property
    def changed(self) -> bool:
        return any(row.changed for row in self.rows)


@dataclass(frozen=True)
class SessionSide:
    id: str
    as_of: str
    started_at: str
    status: str
    action: str


@dataclass(frozen=True)
class SessionComparison:
    symbol: str
    before: SessionSide
    after: SessionSide
    verdict: list[ComparedRow]
    experts: list[ComparedExpert]

    @property
    def changes(self) -> int:
        """How many rows differ, verdict and experts together."""
        rows = [*self.verdict, *(row for expert in self.experts for row in expert.rows)]
        return sum(row.changed for row in rows)


def _level(plan: Mapping[str, Any], field: str) -> str:
    value = plan.get(field)
    if not fmt.is_number(value):
        return fmt.DASH
    return fmt.number(value) if field == "risk_reward" else f"{value:,.2f}"


def _verdict_values(session: ResearchSession, report: ReportView) -> dict[str, str]:
    card = report.verdict
    verdict = session.verdict if isinstance(session.verdict, Mapping) else {}
    plan = verdict.get("trade_plan") if isinstance(verdict.get("trade_plan"), Mapping) else {}
    values = {
        "action": card.action if card.present else fmt.DASH,
        "confidence": card.confidence,
        "position": card.position,
    }
    values.update({key: _level(plan, field) for key, field in PLAN_LEVELS})
    values["horizon"] = card.time_horizon
    return values


def _expert_values(row: ExpertRow | None) -> tuple[dict[str, str], dict[str, str]]:
    """(named fields, key numbers) of one expert in one session; a missing expert is all dashes."""
    if row is None:
        return {"status": "missing"}, {}
    fields = {"status": row.status, "signal": row.signal, "stance": row.stance, "confidence": row.confidence}
    if row.status != "ok":
        fields["error"] = row.error
    return fields, {pair.name: pair.value for pair in row.key_numbers}


def _expert(name: str, before: ExpertRow | None, after: ExpertRow | None) -> ComparedExpert:
    fields_a, numbers_a = _expert_values(before)
    fields_b, numbers_b = _expert_values(after)
    rows = [
        ComparedRow(key, fields_a.get(key, fmt.DASH), fields_b.get(key, fmt.DASH))
        for key in ("status", "signal", "stance", "confidence", "error")
        if key in fields_a or key in fields_b
    ]
    names = list(dict.fromkeys([*numbers_a, *numbers_b]))
    rows += [
        ComparedRow(n, numbers_a.get(n, fmt.DASH), numbers_b.get(n, fmt.DASH), kind="number") for n in names
    ]
    known = after or before
    return ComparedExpert(name=name, title=known.title if known else fmt.label(name), rows=rows)


def _side(session: ResearchSession, report: ReportView) -> SessionSide:
    return SessionSide(
        id=session.id,
        as_of=report.as_of,
        started_at=session.started_at.strftime("%Y-%m-%d %H:%M:%S"),
        status=str(session.status),
        action=report.verdict.action if report.verdict.present else fmt.DASH,
    )


def compare_sessions(first: ResearchSession, second: ResearchSession) -> SessionComparison:
    """The earlier of the two as `before`, the later as `after` (400 when their symbols differ)."""
    if first.symbol != second.symbol:
        raise BadRequestException(
            f"sessions of different symbols cannot be compared ({first.symbol} and {second.symbol}): "
            "pick two sessions of one symbol",
            code="DIFFERENT_SYMBOLS",
        )
    before, after = sorted((first, second), key=lambda s: (s.started_at, s.id))
    view_a, view_b = build_view(before), build_view(after)
    verdict_a, verdict_b = _verdict_values(before, view_a), _verdict_values(after, view_b)
    experts_a = {row.name: row for row in view_a.experts}
    experts_b = {row.name: row for row in view_b.experts}
    names = list(dict.fromkeys([*experts_a, *experts_b]))
    return SessionComparison(
        symbol=before.symbol,
        before=_side(before, view_a),
        after=_side(after, view_b),
        verdict=[ComparedRow(key, verdict_a[key], verdict_b[key]) for key in verdict_a],
        experts=[_expert(n, experts_a.get(n), experts_b.get(n)) for n in names],
    )
