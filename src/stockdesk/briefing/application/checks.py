"""Code checks of a worker's answer before its turns reach the script (spec 7.2).

- speaker: only host/analyst (case and spaces forgiven); another speaker drops the turn;
- text: empty drops the turn; a number none of the worker's inputs holds drops the turn;
- sources: each must be one of the ticker's citable sources (short id, or a whole source whose
  canonical key matches): others are dropped and counted, never replaced by a "closest" one;
- at most MAX_TURNS_PER_TICKER turns are kept.

A ticker left with no turn gets two turns written by code from the debate's conclusion, so every
ticker has its chapter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from stockdesk.briefing.application.grounding import new_numbers
from stockdesk.briefing.application.results import DraftTurn, RejectedTurn
from stockdesk.briefing.domain.dtos import (
    ANALYST,
    HOST,
    MAX_TURNS_PER_TICKER,
    SPEAKERS,
    WorkerReply,
)
from stockdesk.debate.application import CitableSource, Conclusion
from stockdesk.debate.application.sources import resolve_citations


class CheckedTurns(BaseModel):
    turns: list[DraftTurn] = Field(default_factory=list)
    rejected: list[RejectedTurn] = Field(default_factory=list)
    dropped_sources: int = 0


def _rejection(speaker: str, text: str, known: Sequence[float], kept: int) -> tuple[str, list[str]] | None:
    """Why a turn cannot be kept (reason, offending numbers), or None."""
    if speaker not in SPEAKERS:
        return "bad_speaker", []
    if not text:
        return "empty", []
    invented = new_numbers(text, known)
    if invented:
        return "new_number", invented
    if kept >= MAX_TURNS_PER_TICKER:
        return "over_limit", []
    return None


def check_worker_turns(
    ticker: str, reply: WorkerReply, allowed: Sequence[CitableSource], known: Sequence[float]
) -> CheckedTurns:
    checked = CheckedTurns()
    for position, turn in enumerate(reply.scripts):
        speaker = turn.speaker.strip().lower()
        text = " ".join(turn.text.split())
        rejection = _rejection(speaker, text, known, len(checked.turns))
        if rejection is not None:
            reason, numbers = rejection
            checked.rejected.append(
                RejectedTurn.model_validate(
                    {"ticker": ticker, "position": position, "speaker": turn.speaker, "text": turn.text,
                     "reason": reason, "numbers": numbers}
                )
            )  # fmt: skip
            continue
        kept, dropped = resolve_citations(turn.sources, allowed)
        checked.dropped_sources += dropped
        checked.turns.append(DraftTurn(speaker=speaker, text=text, sources=kept))
    return checked


def fallback_turns(ticker: str, debate: Mapping[str, Any]) -> list[DraftTurn]:
    """Two turns from the debate's conclusion: the host introduces the ticker, the analyst gives the
    panel's action and confidence (numbers taken from the debate JSON itself)."""
    conclusion = Conclusion.model_validate(debate["conclusion"])
    return [
        DraftTurn(speaker=HOST, text=f"Next up is {ticker}. What did the panel conclude?"),
        DraftTurn(
            speaker=ANALYST,
            text=(
                f"The panel's conclusion on {ticker} is {conclusion.action.value}, "
                f"with a confidence of {conclusion.confidence:.2f}."
            ),
        ),
    ]
