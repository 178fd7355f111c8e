"""Claims checked against the numbers (shared kernel: research, the debate and the judge use it).

Pure functions over plain data; nothing here imports a bounded context. The usual round:

    texts = collect_texts(answer, PATHS)                  # {field: prose or bullets}
    violations = check_claims(texts, facts, role=...)     # facts: the input the model was shown
                                                          # (the judge passes action=... instead)
    if violations: ask again with repair_feedback(violations), check the new answer the same way
    cleaned = drop_violating(texts, still, required=required_fields(answer, texts))
    answer = Model.model_validate(apply_texts(answer, cleaned))

Besides the numbers, what prose argues is checked: an advocate arguing from the other side's
facts or evidence cards (side_contradiction), a judge's text arguing for another action than the
one chosen (action_contradiction), and a text that stops mid-sentence (cut_off).
"""

from stockdesk.shared.claims.check import check_claims
from stockdesk.shared.claims.fields import apply_texts, collect_texts, required_fields
from stockdesk.shared.claims.grounding import (
    Grounding,
    check_grounding,
    is_grounded,
    numbers_in_text,
    snapshot_numbers,
)
from stockdesk.shared.claims.picks import PickRound, card_line, kept_picks, pick_round, refused_picks
from stockdesk.shared.claims.repair import PLACEHOLDER, CleanedTexts, drop_violating, repair_feedback
from stockdesk.shared.claims.scope import Texts
from stockdesk.shared.claims.text_units import capitalised
from stockdesk.shared.claims.violation import ALL_KINDS, Violation, ViolationKind, dump_violations

__all__ = [
    "ALL_KINDS",
    "PLACEHOLDER",
    "CleanedTexts",
    "Grounding",
    "PickRound",
    "Texts",
    "Violation",
    "ViolationKind",
    "apply_texts",
    "capitalised",
    "card_line",
    "check_claims",
    "check_grounding",
    "collect_texts",
    "drop_violating",
    "dump_violations",
    "is_grounded",
    "kept_picks",
    "numbers_in_text",
    "pick_round",
    "refused_picks",
    "repair_feedback",
    "required_fields",
    "snapshot_numbers",
]
