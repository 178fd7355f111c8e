"""A strategy run's notes (what code says it could not compute) are written in both languages when the
run ends and stored with its summary; a page reads them in its own (issue 32, item 4). A run stored
before keeps its English notes, shown as they were."""

from __future__ import annotations

import re

from stockdesk.shared.wording import both, say
from stockdesk.strategy_lab.application.run_summary import MIN_PBO_TRIALS, Note, overfitting
from stockdesk.strategy_lab.domain.dtos import RunSummary
from stockdesk.strategy_lab.presentation.report.summary_view import summary_view
from tests.strategy_lab.report_support import PLAN, run

LATIN = re.compile(r"[A-Za-z]{2,}")


def test_what_cannot_be_computed_is_noted_by_key_with_the_english_it_always_had() -> None:
    notes: list[Note] = []
    figures = overfitting(None, [], notes)
    assert notes == [
        ("strategy.note.no_dsr", {}),
        ("strategy.note.pbo_few", {"need": MIN_PBO_TRIALS, "trials": 0}),
    ]
    assert figures.notes == [
        "deflated Sharpe: no champion with validation returns",
        "PBO needs at least 2 scored trials; this run has 0",
    ]


def test_a_page_reads_the_notes_in_its_language_and_an_old_run_keeps_its_own() -> None:
    notes: list[Note] = [("strategy.note.no_champion", {})]
    figures = overfitting(None, [], notes)
    summary = RunSummary(
        plan=PLAN,
        overfitting=figures,
        notes=[say(key, "en", **values) for key, values in notes],
        i18n=both(lambda lang: {"notes": [say(key, lang, **values) for key, values in notes]}),
    )
    view = summary_view(run(summary=summary))
    assert view.worded_notes["en"] == summary.notes and len(view.worded_notes["zh"]) == 3
    assert all(not LATIN.search(note) for note in view.worded_notes["zh"]), view.worded_notes["zh"]
    old = summary_view(run(summary=summary.model_copy(update={"i18n": {}})))
    assert old.worded_notes == {} and old.notes == [
        "no champion: no trial stayed within the drawdown limit on validation"
    ]
