"""The refiner's edits (spec 7.3), applied per id: ids can never be added, removed or reordered.

An edit may only change the `speaker` and/or `text` of an existing turn. Rejected, keeping the
original turn: an unknown id; every edit of an id edited more than once (which one would be
meant?); a speaker outside the script's speakers; an edit with neither speaker nor text, or with a
blank text; a text that writes a number the refiner's input (the script's texts) does not hold; a
text that copies another turn (a turn moved, not a transition rewritten). An edit that changes
nothing is recorded as `unchanged`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from stockdesk.briefing.application.grounding import known_numbers, new_numbers
from stockdesk.briefing.application.results import EditDecision
from stockdesk.briefing.domain.dtos import BriefingScript, RefinerEdit, ScriptTurn
from stockdesk.shared.claims.text_units import normalise


def apply_edits(
    script: BriefingScript, edits: Sequence[RefinerEdit], speakers: Sequence[str]
) -> tuple[BriefingScript, list[EditDecision]]:
    """The edited script (same ids, same order, same sources) and a decision for every edit."""
    by_id = {turn.id: turn for turn in script.scripts}
    repeated = {i for i, n in Counter(e.id for e in edits).items() if n > 1}
    rules = _Rules(
        allowed={s.casefold(): s for s in speakers},
        known=known_numbers([turn.text for turn in script.scripts]),
        owners={normalise(turn.text): turn.id for turn in script.scripts},
    )
    changed: dict[int, ScriptTurn] = {}
    decisions: list[EditDecision] = []
    for edit in edits:
        original = by_id.get(edit.id)
        if original is None:
            verdict: tuple[str, str | None, list[str]] = ("rejected", "unknown_id", [])
        elif edit.id in repeated:
            verdict = ("rejected", "duplicate_id", [])
        else:
            edited, verdict = rules.judge(edit, original)
            if edited is not None:
                changed[edit.id] = edited
        status, reason, numbers = verdict
        decisions.append(
            EditDecision.model_validate(
                {"id": edit.id, "speaker": edit.speaker, "text": edit.text, "status": status,
                 "reason": reason, "numbers": numbers}
            )
        )  # fmt: skip
    turns = [changed.get(turn.id, turn) for turn in script.scripts]
    return script.model_copy(update={"scripts": turns}), decisions


@dataclass(frozen=True)
class _Rules:
    allowed: dict[str, str]  # casefolded speaker -> its spelling in the script
    known: list[float]  # numbers of the refiner's input
    owners: dict[str, int]  # normalised text -> id of the turn saying it

    def judge(
        self, edit: RefinerEdit, original: ScriptTurn
    ) -> tuple[ScriptTurn | None, tuple[str, str | None, list[str]]]:
        """(the edited turn or None, (status, reason, numbers)) for one edit of an existing, single id."""
        speaker = edit.speaker.strip() if edit.speaker is not None else None
        text = " ".join(edit.text.split()) if edit.text is not None else None
        if (not speaker and text is None) or text == "":
            return None, ("rejected", "empty", [])
        if speaker and speaker.casefold() not in self.allowed:
            return None, ("rejected", "bad_speaker", [])
        new_speaker = self.allowed[speaker.casefold()] if speaker else original.speaker
        new_text = text if text is not None else original.text
        if new_speaker == original.speaker and new_text == original.text:
            return None, ("unchanged", None, [])
        if text is not None:
            invented = new_numbers(text, self.known)
            if invented:
                return None, ("rejected", "new_number", invented)
            if self.owners.get(normalise(text), edit.id) != edit.id:
                return None, ("rejected", "copies_turn", [])
        return original.model_copy(update={"speaker": new_speaker, "text": new_text}), ("applied", None, [])
