"""Fan-in (spec 7.3/7.4): the base script, then each ticker's turns in the GIVEN ticker order, then
the base script's closing; ids renumbered 0..n-1; one `ticker:{TICKER}` chapter and one
`{ticker, start_id, end_id}` section per ticker.

Base chapters keep their ids (they are the prefix of the merged script); a `closing` chapter (the
base's last, see read_base_script) moves, with its turns, after the ticker chapters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from stockdesk.briefing.application.results import DraftTurn
from stockdesk.briefing.domain.dtos import (
    CLOSING_CHAPTER,
    TICKER_CHAPTER_PREFIX,
    BaseScript,
    BriefingScript,
    Chapter,
    ScriptTurn,
    TickerSection,
)
from stockdesk.debate.application import Source


class MergedScript(BaseModel):
    script: BriefingScript
    sections: list[TickerSection]


def before_closing(base: BaseScript | None) -> BaseScript | None:
    """The base script as the ticker parts follow it: without its closing chapter and turns."""
    closing = next((c for c in base.chapter if c.name == CLOSING_CHAPTER), None) if base else None
    if base is None or closing is None:
        return base
    return base.model_copy(
        update={
            "chapter": [c for c in base.chapter if c is not closing],
            "scripts": base.scripts[: closing.start_id],
        }
    )


def merge_script(
    day: str, tickers: Sequence[str], base: BaseScript | None, parts: Mapping[str, Sequence[DraftTurn]]
) -> MergedScript:
    """`parts[ticker]` must hold at least one turn for every ticker (the checks' fallback sees to it)."""
    base = base or BaseScript()
    closing = next((c for c in base.chapter if c.name == CLOSING_CHAPTER), None)
    split = closing.start_id if closing else len(base.scripts)
    turns: list[ScriptTurn] = []

    def append(speaker: str, text: str, sources: Sequence[Source]) -> None:
        turns.append(ScriptTurn(id=len(turns), speaker=speaker, text=text, sources=list(sources)))

    for turn in base.scripts[:split]:
        append(turn.speaker, turn.text, turn.sources)
    chapters = [c.model_copy() for c in base.chapter if c is not closing]
    sections: list[TickerSection] = []
    for ticker in tickers:
        drafted = parts.get(ticker) or []
        if not drafted:
            raise ValueError(f"no turns for {ticker}: every ticker needs its chapter")
        start = len(turns)
        for draft in drafted:
            append(draft.speaker, draft.text, draft.sources)
        sections.append(TickerSection(ticker=ticker, start_id=start, end_id=len(turns) - 1))
        chapters.append(
            Chapter(name=f"{TICKER_CHAPTER_PREFIX}{ticker}", start_id=start, end_id=len(turns) - 1)
        )
    if closing is not None:
        start = len(turns)
        for turn in base.scripts[split:]:
            append(turn.speaker, turn.text, turn.sources)
        chapters.append(Chapter(name=closing.name, start_id=start, end_id=len(turns) - 1))
    script = BriefingScript(date=day, user_tickers=list(tickers), chapter=chapters, scripts=turns)
    return MergedScript(script=script, sections=sections)
