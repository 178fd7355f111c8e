"""The worker's inputs as compact prompt text: the base script as numbered lines, the debate JSON
with every source replaced by its short id, and the 5-minute bars as a small table.

Numbers are written as the inputs hold them (integers without `.0`), so the code's number check
and the model see the same values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from stockdesk.briefing.domain.dtos import BaseScript
from stockdesk.debate.application import PANEL_ROLES, CitableSource, PanelArtifact, PriceSummary
from stockdesk.debate.application.sources import canonical_key

NO_BASE = "(none: this part opens the show)"


def num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(round(value, 4)) if isinstance(value, float) else str(value)


def render_base(base: BaseScript | None) -> str:
    if base is None or not base.scripts:
        return NO_BASE
    chapters = ", ".join(f"{c.name} {c.start_id}-{c.end_id}" for c in base.chapter)
    lines = [f"{t.id} {t.speaker}: {' '.join(t.text.split())}" for t in base.scripts]
    return f"chapters: {chapters}\n" + "\n".join(lines)


def render_debate(debate: Mapping[str, Any], sources: Sequence[CitableSource]) -> str:
    """The debate JSON, one round per line, sources as ids ("N1") the model can copy."""
    ids = {canonical_key(c.source): c.id for c in sources}
    artifact = PanelArtifact.model_validate(debate)
    rounds = []
    for played in artifact.rounds:
        turns: dict[str, Any] = {"round": played.round}
        for role in PANEL_ROLES:
            turn = getattr(played, role)
            turns[role] = {
                "text": turn.text,
                "action": turn.action.value,
                "confidence": turn.confidence,
                "sources": [ids[canonical_key(s)] for s in turn.sources if canonical_key(s) in ids],
            }
        rounds.append(json.dumps(turns, ensure_ascii=False))
    head = json.dumps({"ticker": artifact.ticker, "date": artifact.date}, ensure_ascii=False)[:-1]
    conclusion = json.dumps(artifact.conclusion.model_dump(mode="json"), ensure_ascii=False)
    return head + ', "rounds": [\n' + ",\n".join(rounds) + f'\n], "conclusion": {conclusion}}}'


def render_intraday(rows: Sequence[Mapping[str, Any]], summary: PriceSummary | None, note: str) -> str:
    if not rows or summary is None:
        return note or "no data"
    head = (
        f"summary: open {num(rows[0].get('open', summary.first_close))}, last {num(summary.last_close)} "
        f"({summary.pct_change:+.2f}% from the first close {num(summary.first_close)}), "
        f"high {num(summary.high)}, low {num(summary.low)}"
    )
    table = ["time open high low close volume"]
    for r in rows:
        time = str(r.get("ts", ""))[11:16] or str(r.get("ts", ""))
        values = " ".join(num(r.get(k)) for k in ("open", "high", "low", "close", "volume"))
        table.append(f"{time} {values}")
    return head + "\n" + "\n".join(table)
