"""The panel's consensus rule, computed in code (spec 3): never left to a model's judgement."""

from __future__ import annotations

from collections.abc import Iterable

from stockdesk.debate.domain.dtos.panel import ExpertTurn

DEFAULT_CONSENSUS_CONFIDENCE = 0.7


def is_consensus(turns: Iterable[ExpertTurn], threshold: float = DEFAULT_CONSENSUS_CONFIDENCE) -> bool:
    """All experts' actions equal AND every confidence >= `threshold` (the four turns of one round)."""
    turns = list(turns)
    if not turns:
        return False
    return len({t.action for t in turns}) == 1 and all(t.confidence >= threshold for t in turns)
