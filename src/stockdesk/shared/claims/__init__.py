"""Claims checked against the numbers (shared kernel: research, the debate and the judge use it).

Pure functions over plain data; nothing here imports a bounded context. The usual round:

    def wrong(answer):                                    # facts: the input the model was shown
        return check_claims(collect_texts(answer, PATHS), facts, role=...)  # judge: action=...
    done = checked_round(ask, wrong, repair_feedback, unparsed=(LLMOutputParseError,))
    texts = collect_texts(done.final, PATHS)
    cleaned = drop_violating(texts, done.still, required=required_fields(done.final, texts))
    answer = Model.model_validate(apply_texts(done.final, cleaned))

Choices mode uses the same round with `wrong` = the refused picks and `feedback=listed(header)`.

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
from stockdesk.shared.claims.picks import card_line, kept_picks, refused_picks
from stockdesk.shared.claims.repair import PLACEHOLDER, CleanedTexts, drop_violating, repair_feedback
from stockdesk.shared.claims.round import CheckedRound, checked_round, listed
from stockdesk.shared.claims.scope import Texts
from stockdesk.shared.claims.text_units import capitalised
from stockdesk.shared.claims.violation import ALL_KINDS, Violation, ViolationKind, dump_violations

__all__ = [
    "ALL_KINDS",
    "PLACEHOLDER",
    "CheckedRound",
    "CleanedTexts",
    "Grounding",
    "Texts",
    "Violation",
    "ViolationKind",
    "apply_texts",
    "capitalised",
    "card_line",
    "check_claims",
    "check_grounding",
    "checked_round",
    "collect_texts",
    "drop_violating",
    "dump_violations",
    "is_grounded",
    "kept_picks",
    "listed",
    "numbers_in_text",
    "refused_picks",
    "repair_feedback",
    "required_fields",
    "snapshot_numbers",
]
