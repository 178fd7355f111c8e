"""Two research sessions of one symbol side by side: what changed in the verdict and per expert.

Built from the same ReportView the report shows (so a value reads the same in both), plus the
trade plan's levels read from the verdict. The earlier session is `before`, the later `after`;
a row is `changed` when the two texts differ. Comparing two symbols makes no sense: a 400.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from stockdesk.coordinator.application import ResearchSession
from stockdesk.coordinator.presentation.reports import formatting as fmt
from stockdesk.coordinator.presentation.reports.view import build_view, named
from stockdesk.coordinator.presentation.reports.view_model import ExpertRow, ReportView
from stockdesk.data_engineering.application import currency_of
from stockdesk.shared.errors import BadRequestException
from stockdesk.shared.figures import ShownFigure, format_figure

RowKind = Literal["field", "number"]  # a named field (translated by the page) or a key figure (its label)
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
    label: str = ""  # a key figure's label (shared.figures), in the page's language
    data: bool = False  # the values are records as stored (an expert's error), not code's words

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


def _verdict_values(session: ResearchSession, report: ReportView, lang: str) -> dict[str, str]:
    card = report.verdict
    verdict = session.verdict if isinstance(session.verdict, Mapping) else {}
    plan = verdict.get("trade_plan") if isinstance(verdict.get("trade_plan"), Mapping) else {}
    values = {
        "action": named("action.", card.action, lang) if card.present else fmt.DASH,
        "confidence": card.confidence,
        "position": card.position,
    }
    currency = currency_of(session.symbol)
    values.update({key: format_figure(field, plan.get(field), lang, currency) for key, field in PLAN_LEVELS})
    values["horizon"] = card.time_horizon
    return values


def _expert_values(row: ExpertRow | None, lang: str) -> tuple[dict[str, str], dict[str, ShownFigure]]:
    """(named fields, key figures by key) of one expert in one session; a missing expert is all dashes."""
    if row is None:
        return {"status": named("report.status.", "missing", lang)}, {}
    fields = {
        "status": named("report.status.", row.status, lang),
        "signal": row.signal,
        "stance": row.stance,
        "confidence": row.confidence,
    }
    if row.status != "ok":
        fields["error"] = row.error
    return fields, {figure.key: figure for figure in row.key_numbers}


def _expert(name: str, before: ExpertRow | None, after: ExpertRow | None, lang: str = "en") -> ComparedExpert:
    fields_a, numbers_a = _expert_values(before, lang)
    fields_b, numbers_b = _expert_values(after, lang)
    rows = [
        ComparedRow(key, fields_a.get(key, fmt.DASH), fields_b.get(key, fmt.DASH), data=key == "error")
        for key in ("status", "signal", "stance", "confidence", "error")
        if key in fields_a or key in fields_b
    ]
    for key in dict.fromkeys([*numbers_a, *numbers_b]):
        a, b = numbers_a.get(key), numbers_b.get(key)
        label = (a or b).name if (a or b) else key
        values = (a.value if a else fmt.DASH, b.value if b else fmt.DASH)
        rows.append(ComparedRow(key, *values, kind="number", label=label))
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


def compare_sessions(first: ResearchSession, second: ResearchSession, lang: str = "en") -> SessionComparison:
    """The earlier of the two as `before`, the later as `after` (400 when their symbols differ); the
    figures worded in `lang` by the one figures table, as the session page words them."""
    if first.symbol != second.symbol:
        raise BadRequestException(
            f"sessions of different symbols cannot be compared ({first.symbol} and {second.symbol}): "
            "pick two sessions of one symbol",
            code="DIFFERENT_SYMBOLS",
            details={"first": first.symbol, "second": second.symbol},
        )
    before, after = sorted((first, second), key=lambda s: (s.started_at, s.id))
    view_a, view_b = build_view(before, lang), build_view(after, lang)
    verdict_a, verdict_b = _verdict_values(before, view_a, lang), _verdict_values(after, view_b, lang)
    experts_a = {row.name: row for row in view_a.experts}
    experts_b = {row.name: row for row in view_b.experts}
    names = list(dict.fromkeys([*experts_a, *experts_b]))
    return SessionComparison(
        symbol=before.symbol,
        before=_side(before, view_a),
        after=_side(after, view_b),
        verdict=[ComparedRow(key, verdict_a[key], verdict_b[key]) for key in verdict_a],
        experts=[_expert(n, experts_a.get(n), experts_b.get(n), lang) for n in names],
    )
