"""The refiner's edits (spec 7.3) are applied per existing id only: unknown ids, duplicates, speakers
outside the script, empty edits, new numbers and moved turns are rejected with the original kept, and a
whole reordered/truncated script as "edits" can never add, remove or reorder a turn."""

from __future__ import annotations

from stockdesk.briefing.application.edits import apply_edits
from stockdesk.briefing.domain.dtos import SPEAKERS, BriefingScript, Chapter, RefinerEdit, ScriptTurn
from stockdesk.debate.domain.dtos.panel import ChartSource

CHART = ChartSource(ticker="AAA", start_date="2024-01-31", end_date="2024-03-01")
TEXTS = [
    ("host", "Welcome to the desk."),
    ("analyst", "Revenue rose 12.5% to $1,234.5 million."),
    ("host", "Next up is AAA."),
    ("analyst", "The panel said HOLD at 0.6."),
    ("host", "Now BBB."),
    ("analyst", "BBB margins reached 41.5%."),
    ("host", "Thanks for listening."),
    ("analyst", "Goodbye."),
]


def script() -> BriefingScript:
    turns = [
        ScriptTurn(id=i, speaker=s, text=t, sources=[CHART] if i == 3 else [])
        for i, (s, t) in enumerate(TEXTS)
    ]
    chapters = [
        Chapter(name="opening", start_id=0, end_id=1),
        Chapter(name="ticker:AAA", start_id=2, end_id=3),
        Chapter(name="ticker:BBB", start_id=4, end_id=5),
        Chapter(name="closing", start_id=6, end_id=7),
    ]
    return BriefingScript(date="20240301", user_tickers=["AAA", "BBB"], chapter=chapters, scripts=turns)


def edit(id: int, speaker: str | None = None, text: str | None = None) -> RefinerEdit:
    return RefinerEdit(id=id, speaker=speaker, text=text)


def test_good_edits_are_applied_and_bad_ones_rejected_keeping_the_original() -> None:
    original = script()
    edits = [
        edit(2, text="Let's move from the opening to AAA."),  # applied
        edit(4, speaker="analyst"),  # applied: a speaker change only
        edit(99, text="A new turn."),  # unknown id
        edit(5, text="BBB margins reached 41.5% and more."),  # duplicate id (twice)
        edit(5, text="BBB margins: 41.5%."),
        edit(3, speaker="narrator", text="The panel said HOLD."),  # not a speaker of this script
        edit(1),  # neither speaker nor text
        edit(0, text="   "),  # a blank text
        edit(6, text="Thanks for listening, back at 0.75 tomorrow."),  # 0.75 is in no turn
        edit(7, text="Goodbye."),  # unchanged
    ]
    edited, decisions = apply_edits(original, edits, SPEAKERS)
    outcome = [(d.id, d.status, d.reason) for d in decisions]
    assert outcome == [
        (2, "applied", None),
        (4, "applied", None),
        (99, "rejected", "unknown_id"),
        (5, "rejected", "duplicate_id"),
        (5, "rejected", "duplicate_id"),
        (3, "rejected", "bad_speaker"),
        (1, "rejected", "empty"),
        (0, "rejected", "empty"),
        (6, "rejected", "new_number"),
        (7, "unchanged", None),
    ]
    assert decisions[8].numbers == ["0.75"]
    assert (
        edited.scripts[2].text == "Let's move from the opening to AAA."
        and edited.scripts[2].speaker == "host"
    )
    assert edited.scripts[4].speaker == "analyst" and edited.scripts[4].text == "Now BBB."
    for i in (0, 1, 3, 5, 6, 7):  # every rejected edit left its turn exactly as it was
        assert edited.scripts[i] == original.scripts[i]
    assert edited.scripts[3].sources == [CHART] and edited.chapter == original.chapter
    assert [t.id for t in edited.scripts] == list(range(8))


def test_numbers_are_compared_normalised_and_speakers_case_insensitively() -> None:
    edits = [
        edit(1, text="Revenue rose 12.50% to $1234.5 million."),  # same numbers, other spellings
        edit(5, speaker="HOST", text="BBB margins were 41.5 percent, up from 40%."),  # 40 is new
        edit(3, speaker="Analyst", text="The panel's view: HOLD, confidence 60%."),  # 0.6 as a percentage
    ]
    edited, decisions = apply_edits(script(), edits, SPEAKERS)
    assert [(d.status, d.reason, d.numbers) for d in decisions] == [
        ("applied", None, []),
        ("rejected", "new_number", ["40"]),
        ("applied", None, []),
    ]
    assert edited.scripts[3].speaker == "analyst"  # the script's own spelling


def test_a_whole_script_reordered_or_truncated_never_moves_adds_or_removes_turns() -> None:
    original = script()
    shuffled = [5, 2, 0, 4, 1, 3, 7, 6]  # the refiner answered the whole script in another order
    as_reordered = [edit(i, s, t) for i, (s, t) in zip(range(8), [TEXTS[j] for j in shuffled], strict=True)]
    edited, decisions = apply_edits(original, as_reordered, SPEAKERS)
    assert edited.scripts == original.scripts  # no text moved to another id
    assert [(d.status, d.reason) for d in decisions] == [("rejected", "copies_turn")] * 8

    in_new_order = [edit(i, s, t) for i, (s, t) in sorted(enumerate(TEXTS), key=lambda p: -p[0])]
    edited, decisions = apply_edits(original, in_new_order, SPEAKERS)
    assert edited.scripts == original.scripts and {d.status for d in decisions} == {"unchanged"}

    truncated_and_extended = [edit(0, *TEXTS[0]), edit(1, *TEXTS[1]), edit(8, "host", "A new closing turn.")]
    edited, decisions = apply_edits(original, truncated_and_extended, SPEAKERS)
    assert [t.id for t in edited.scripts] == list(range(8)) and edited.scripts == original.scripts
    assert decisions[-1].reason == "unknown_id"


def test_base_script_speakers_are_allowed_when_the_script_has_them() -> None:
    edited, decisions = apply_edits(script(), [edit(0, speaker="guest")], [*SPEAKERS, "guest"])
    assert decisions[0].status == "applied" and edited.scripts[0].speaker == "guest"
