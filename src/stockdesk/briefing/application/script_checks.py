"""Checks of one ticker's part as a whole, after the per-turn checks (checks.py): enough turns, the
debate's stance, and no names the writer's sources never give.

- turns: the worker is told to write MIN_TURNS_PER_TICKER to MAX_TURNS_PER_TICKER turns (its
  system prompt); fewer kept turns is re-asked once, naming the ticker and the count, and a part
  still short is recorded as a finding. Code never pads a part (the fallback for a ticker left
  with no turn at all is the only code-written text, and it is recorded as short too);
- stance: the action the script states last (the analyst is told to end with the panel's
  conclusion) must be the action of the ticker's debate conclusion (BUY / SELL / HOLD, i.e. the
  outcome's bullish / bearish / neutral direction); another action, or none at all, is re-asked
  once (in the same re-ask as a short part) and then recorded;
- names (names.py): people and firms no input of the worker names are recorded, never re-asked
  or dropped (the detector is a pattern, not a proof).

The re-ask is one more worker call with the findings as feedback (the agent's `feedback`): the same
mechanism as the debate's repair round, with the briefing's own checks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from stockdesk.briefing.application.names import unknown_names
from stockdesk.briefing.application.results import DraftTurn, ScriptFinding
from stockdesk.briefing.domain.dtos import MAX_TURNS_PER_TICKER, MIN_TURNS_PER_TICKER
from stockdesk.briefing.domain.ports import WorkerInput
from stockdesk.debate.application import Conclusion

# an action as the script states it: the debate JSON's words (upper case only: "hold" is a verb
# too), bullish / bearish, and the Chinese words for them
_STANCE = re.compile(
    r"(?P<BUY>\bBUY\b|\b[Bb]ullish\b|买入|增持|看多)"
    r"|(?P<SELL>\bSELL\b|\b[Bb]earish\b|卖出|减持|看空)"
    r"|(?P<HOLD>\bHOLD\b|持有|观望|中性)"
)
_NEGATED = re.compile(r"(?:\bnot|\bno|\bnever|不|非|未|别|勿)[^.,;!?，。；！？]{0,8}$", re.IGNORECASE)


def expected_action(debate: Mapping[str, Any]) -> str:
    """The action of the debate's conclusion (BUY / SELL / HOLD)."""
    return Conclusion.model_validate(debate["conclusion"]).action.value


def script_stance(turns: Sequence[DraftTurn]) -> str | None:
    """The action the part states last (not negated: "not a SELL" states none), or None."""
    for turn in reversed(turns):
        said = [
            m.lastgroup
            for m in _STANCE.finditer(turn.text)
            if m.lastgroup and not _NEGATED.search(turn.text[: m.start()])
        ]
        if said:
            return said[-1]
    return None


def reasked_findings(ticker: str, turns: Sequence[DraftTurn], expected: str) -> list[ScriptFinding]:
    """The findings a re-ask can fix: too few turns, a stance other than the debate's."""
    found: list[ScriptFinding] = []
    if len(turns) < MIN_TURNS_PER_TICKER:
        found.append(
            ScriptFinding(
                ticker=ticker,
                kind="too_few_turns",
                turns=len(turns),
                detail=f"{ticker} has {len(turns)} usable turns, fewer than {MIN_TURNS_PER_TICKER}",
            )
        )
    stance = script_stance(turns)
    if stance != expected:
        said = f"states {stance}" if stance else "states no action"
        found.append(
            ScriptFinding(
                ticker=ticker,
                kind="stance_mismatch",
                expected=expected,
                found=stance,
                detail=f"the panel concluded {expected} on {ticker}, the script {said}",
            )
        )
    return found


def name_findings(ticker: str, turns: Sequence[DraftTurn], job: WorkerInput) -> list[ScriptFinding]:
    """One finding per name (person or firm) the part gives and none of the worker's inputs does."""
    sources = job.model_dump_json()  # every input the worker was given
    names = unknown_names(" ".join(t.text for t in turns), sources, skip=job.tickers)
    return [
        ScriptFinding(
            ticker=ticker, kind="unknown_name", name=name, detail=f"{name!r} is in none of the sources given"
        )
        for name in names
    ]


def reask_feedback(ticker: str, findings: Sequence[ScriptFinding]) -> str:
    """English feedback (the worker writes English) naming the ticker, the count and the stance."""
    lines = [f"Your script for {ticker} did not pass the checks. Write it again, fixing:"]
    for finding in findings:
        if finding.kind == "too_few_turns":
            lines.append(
                f"- {ticker}: only {finding.turns} usable turns. Write {MIN_TURNS_PER_TICKER} to "
                f"{MAX_TURNS_PER_TICKER} turns; a turn with a number not in your inputs or another "
                "speaker than host/analyst is not usable."
            )
        elif finding.kind == "stance_mismatch":
            said = f"your script says {finding.found}" if finding.found else "your script never says it"
            lines.append(
                f"- {ticker}: the panel's conclusion is {finding.expected}, but {said}. The analyst "
                f"ends with the panel's conclusion: {finding.expected} and its confidence."
            )
    return "\n".join(lines)
