"""Choices mode's one checking round for a research expert: picks read against its verdict.

A bullish verdict (Undervalued, BULLISH, ...) may rest only on cards code reads bullish or neutral,
a bearish one only on bearish or neutral cards; a neutral verdict on any. The note, if any, is
asked to keep within 40 characters and gets the prose checks (numbers found in the input, no
trade instruction, the shared claim checks). A wrong pick is re-asked once with the reasons; what
is still wrong is dropped and recorded, never replaced by a guess. A note too long or failing a
check is dropped and recorded (never cut short) without a re-ask of its own.
A bullish (bearish) call's note is also read as an advocate's argument: it may not rest on a card
code reads bearish (bullish).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from stockdesk.research.application.expert_runner import TextFields, guard, passed, run_guarded
from stockdesk.research.application.expert_runner import feedback_for as note_feedback
from stockdesk.research.application.expert_views import STANCE_OF
from stockdesk.research.domain.dtos.evidence_card import EvidenceCard
from stockdesk.research.domain.dtos.expert import AgentAnswer, GuardReport
from stockdesk.research.domain.dtos.expert_choice import NOTE_CHARS, ExpertChoice
from stockdesk.research.domain.ports.choices import ChoiceQuestion, IExpertChoicePort
from stockdesk.shared.claims import check_claims, checked_round, kept_picks, listed, refused_picks
from stockdesk.shared.errors import LLMOutputParseError

logger = logging.getLogger(__name__)
ALLOWED = {"bullish": {1, 0}, "bearish": {-1, 0}, "neutral": {-1, 0, 1}}
SIDE_OF = {"bullish": "bull", "bearish": "bear"}
FEEDBACK_HEADER = "以下选择不符合规则，请重新回答（卡号只用列出的，方向须与判断一致）："


@dataclass
class Answered:
    """What one expert round gives its result: the fields, and the trace (the last call, the
    guards' report and, in choices mode, the picks)."""

    fields: dict[str, Any]
    answer: AgentAnswer[Any]
    guards: GuardReport
    choice: ExpertChoice | None = None

    def trace(self) -> dict[str, Any]:
        """The result's trace fields (ExpertTrace: input, output, grounding, guards, choice)."""
        return {
            "input": self.answer.input,
            "output": self.answer.output,
            "grounding": self.guards.grounding,
            "guards": self.guards,
            "choice": self.choice,
        }


def guarded(
    analyze: Callable[[str | None], AgentAnswer[Any]],
    texts: Callable[[Any], TextFields],
    facts: Any,
    expert: str,
) -> Answered:
    """Prose mode: the guarded round (expert_runner.run_guarded); the fields are the answer's."""
    answer, guards = run_guarded(analyze, texts, facts, expert=expert)
    return Answered(answer.parsed.model_dump(), answer, guards)


def _note(parsed: BaseModel) -> dict[str, str | list[str]]:
    note = str(getattr(parsed, "note", "") or "").strip()
    return {"note": note} if note else {}


def problems(
    answer: AgentAnswer[BaseModel], cards: list[EvidenceCard], facts: Any
) -> tuple[list[str], GuardReport]:
    """Each refused pick as `cards:<id>：reason`, a note too long or failing the prose checks as
    `note：reason`; and the note's guard report."""
    parsed = answer.parsed
    verdict = str(parsed.verdict)  # type: ignore[attr-defined]
    directions = {c.id: int(c.direction) for c in cards}
    allowed = {"cards": ALLOWED[STANCE_OF.get(verdict, "neutral")]}
    wrong = refused_picks(parsed.model_dump(), allowed, directions, f"与判断 {verdict} 的方向相反")
    note = _note(parsed).get("note", "")
    if len(note) > NOTE_CHARS:
        wrong.append(f"note：{len(note)} 个字，超过 {NOTE_CHARS} 个字，请缩短或留空")
    report = guard(answer, _note, facts) if note else GuardReport()
    side = SIDE_OF.get(STANCE_OF.get(verdict, "neutral"))
    if note and side:  # a bullish call's note may not argue from a card code reads bearish
        shown = {"cards": [c.model_dump() for c in cards]}
        found = check_claims({"supporting_arguments": note}, shown, role=side, checks={"side_contradiction"})
        report = report.model_copy(update={"violations": [*report.violations, *found]})
    if not passed(report):
        wrong.append("note：" + note_feedback(report.violations).replace("\n", " "))
    return wrong, report


def _kept(parsed: BaseModel, wrong: list[str]) -> dict[str, Any]:
    picks = kept_picks(parsed.model_dump(), ["cards"], wrong)
    if any(w.startswith("note：") for w in wrong):
        picks["note"] = ""
    return picks


def _is_pick(problem: str) -> bool:
    return not problem.startswith("note：")


def choose(
    chooser: IExpertChoicePort,
    expert: str,
    snapshot: BaseModel,
    cards: list[EvidenceCard],
    words: tuple[str, ...],
    facts: Any,
    render: Callable[[ExpertChoice], dict[str, Any]],
) -> Answered:
    """One call, re-asked once when a pick is wrong (shared.claims.checked_round); what is still wrong
    is then dropped. A bad note alone is dropped without a re-ask (it is optional, and a call costs
    the small model ~10 s). `render` writes the result's fields from the picks kept."""
    allowed = {w: [c.id for c in cards if c.direction in ALLOWED[STANCE_OF.get(w, "neutral")]] for w in words}
    reports: dict[int, GuardReport] = {}  # each answer's note report, checked once (by the round)

    def wrong(answer: AgentAnswer[BaseModel]) -> list[str]:
        found, reports[id(answer)] = problems(answer, cards, facts)
        return found

    done = checked_round(
        lambda feedback: chooser.answer(ChoiceQuestion(expert, snapshot, cards, allowed), feedback),
        wrong,
        listed(FEEDBACK_HEADER),
        unparsed=(LLMOutputParseError,),
        reask=lambda wrong: any(_is_pick(w) for w in wrong),
    )
    first_report, final_report = reports[id(done.answers[0])], reports[id(done.final)]
    still = done.still
    if still:
        logger.info("%s choices: dropped what was wrong: %s", expert, still)
    choice = ExpertChoice(
        **_kept(done.final.parsed, still), first_wrong=done.first_wrong, retried=done.retried, dropped=still
    )
    guards = final_report.model_copy(
        update={
            "retried": done.retried,
            "flagged": any(_is_pick(w) for w in still),
            "first_violations": first_report.violations,
            "dropped": still,
        }
    )
    return Answered(render(choice), done.final, guards, choice)


def answered(
    chooser: IExpertChoicePort | None,
    expert: str,
    snapshot: BaseModel,
    cards: list[EvidenceCard],
    words: tuple[str, ...],
    facts: Any,
    *,
    render: Callable[[ExpertChoice], dict[str, Any]],
    prose: Callable[[], Answered],
) -> Answered:
    """One expert round in the LLM's output style: with a `chooser` the model picks and `render`
    writes the fields from its choice; without one, `prose()` (the model writes, under the guards)."""
    if chooser is None:
        return prose()
    return choose(chooser, expert, snapshot, cards, words, facts, render)
