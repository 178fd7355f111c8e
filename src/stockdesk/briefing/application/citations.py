"""The sources a briefing turn may cite: those of the ticker's debate (every round) and of the base
script, each once, with short ids (N1 news, C1 chart, F1 filing, E1 event) as the panel lists them,
so a small model can copy an id instead of rewriting a source."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from stockdesk.briefing.domain.dtos import BaseScript
from stockdesk.debate.application import CitableSource, PanelArtifact, Source
from stockdesk.debate.application.sources import canonical_key

PREFIX = {"article": "N", "chart": "C", "sec_filing": "F", "event": "E"}


def debate_sources(debate: Mapping[str, Any]) -> list[Source]:
    artifact = PanelArtifact.model_validate(debate)
    return [s for played in artifact.rounds for turn in played.turns().values() for s in turn.sources]


def citable_sources(debate: Mapping[str, Any], base: BaseScript | None) -> list[CitableSource]:
    """Debate sources first, then the base script's; duplicates (same canonical key) listed once."""
    found: Iterable[Source] = [
        *debate_sources(debate),
        *(s for t in (base.scripts if base else []) for s in t.sources),
    ]
    seen: set[tuple[str, ...]] = set()
    counts: dict[str, int] = {}
    listed: list[CitableSource] = []
    for source in found:
        key = canonical_key(source)
        if key in seen:
            continue
        seen.add(key)
        counts[source.type] = counts.get(source.type, 0) + 1
        listed.append(CitableSource(id=f"{PREFIX[source.type]}{counts[source.type]}", source=source))
    return listed
