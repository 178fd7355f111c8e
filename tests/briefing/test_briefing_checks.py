"""Code checks of a worker's turns (spec 7.2): only host/analyst, no empty text, no number its inputs do
not hold, at most ten turns; sources only from the inputs (the debate's, the base script's), matched by
canonical key, a fabricated one dropped and counted and never substituted; code-written fallback turns
whose numbers come from the debate's conclusion."""

from __future__ import annotations

from datetime import date
from typing import Any

from stockdesk.briefing.application import read_base_script
from stockdesk.briefing.application.checks import check_worker_turns, fallback_turns
from stockdesk.briefing.application.citations import citable_sources
from stockdesk.briefing.application.grounding import known_numbers, new_numbers
from stockdesk.briefing.domain.dtos import WorkerReply
from stockdesk.debate.domain.dtos.panel import ArticleSource, ChartSource, SecFilingSource
from tests.briefing.briefing_support import base_script

CHART = {"type": "chart", "ticker": "AAA", "start_date": "2024-01-31", "end_date": "2024-03-01"}
FILING = {
    "type": "sec_filing",
    "ticker": "AAA",
    "form": "10-Q",
    "filed_date": "2024-02-02",
    "accession_number": "0000054321-24-000012",
}
NEWS = {"type": "article", "pk": "id#AAA:abc123def456", "title": "AAA beats estimates"}
THEME = {"type": "article", "pk": "id#THEME:000000000001", "title": "Margins widen"}


def role(text: str, action: str, confidence: float, sources: list[dict[str, Any]]) -> dict[str, Any]:
    return {"text": text, "action": action, "confidence": confidence, "sources": sources}


def debate() -> dict[str, Any]:
    played = {
        "round": 1,
        "fundamental": role("Revenue grew 12% to $1.2 billion.", "BUY", 0.7, [FILING, NEWS]),
        "risk": role("Orders are slowing.", "HOLD", 0.55, [CHART]),
        "growth": role("A new plant doubles capacity.", "BUY", 0.65, [NEWS]),
        "sentiment": role("Close went 121 to 143 (+18.18%).", "HOLD", 0.5, [CHART]),
    }
    conclusion = {"text": "Growth outweighs slowing orders.", "action": "BUY", "confidence": 0.62}
    return {"ticker": "AAA", "date": "20240301", "rounds": [played], "conclusion": conclusion}


def reply(*turns: dict[str, Any]) -> WorkerReply:
    return WorkerReply.model_validate({"ticker": "AAA", "scripts": list(turns)})


def say(speaker: str, text: str, sources: list[Any] | None = None) -> dict[str, Any]:
    return {"id": 0, "speaker": speaker, "text": text, "sources": sources or []}


def test_the_citable_sources_are_the_debate_s_and_the_base_script_s_once_each_with_short_ids() -> None:
    base = read_base_script(base_script(), date(2024, 3, 1))
    listed = citable_sources(debate(), base)
    assert [(c.id, c.source.type) for c in listed] == [
        ("F1", "sec_filing"),
        ("N1", "article"),
        ("C1", "chart"),
        ("N2", "article"),
    ]
    assert listed[3].source == ArticleSource(**THEME)  # from the base script's theme
    assert [c.id for c in citable_sources(debate(), None)] == ["F1", "N1", "C1"]


def test_sources_are_reused_from_the_inputs_and_a_fabricated_one_is_dropped_never_substituted() -> None:
    base = read_base_script(base_script(), date(2024, 3, 1))
    allowed = citable_sources(debate(), base)
    fabricated = {**NEWS, "pk": "id#AAA:abc123def457"}  # a real title, one character off in the pk
    respelled = {
        **FILING,
        "ticker": " aaa ",
        "accession_number": "000005432124000012",
        "filed_date": "20240202",
    }
    checked = check_worker_turns(
        "AAA",
        reply(
            say("host", "AAA is next.", ["C1", "N9"]),  # N9 was never listed
            say("analyst", "Revenue grew 12%.", [respelled, fabricated]),
            say("analyst", "As in the theme, margins matter.", ["N2", THEME, {"type": "tweet", "id": "1"}]),
        ),
        allowed,
        known_numbers(debate()),
    )
    assert checked.dropped_sources == 3  # N9, the fabricated article, the malformed source
    assert [t.sources for t in checked.turns] == [
        [ChartSource(**CHART)],
        [SecFilingSource(**FILING)],  # the listed entry itself, in its clean spelling
        [ArticleSource(**THEME)],  # the base script's source is allowed (cited twice, kept once)
    ]
    every = [s for t in checked.turns for s in t.sources]
    assert all(getattr(s, "pk", None) != fabricated["pk"] for s in every)


def test_turns_with_another_speaker_no_text_or_a_new_number_are_dropped_and_recorded() -> None:
    checked = check_worker_turns(
        "AAA",
        reply(
            say(" Host ", "  AAA   grew revenue 12%  to $1.2 billion. "),
            say("narrator", "A word from our sponsor."),
            say("analyst", "   "),
            say("analyst", "Shares jumped 25% on the news."),
            say("analyst", "The close went from 121 to 143, up 18.2%, confidence 62%."),
        ),
        [],
        known_numbers(debate()),
    )
    assert [(t.speaker, t.text) for t in checked.turns] == [
        ("host", "AAA grew revenue 12% to $1.2 billion."),
        ("analyst", "The close went from 121 to 143, up 18.2%, confidence 62%."),  # rounding and % allowed
    ]
    assert [(r.position, r.reason, r.numbers) for r in checked.rejected] == [
        (1, "bad_speaker", []),
        (2, "empty", []),
        (3, "new_number", ["25"]),
    ]
    assert checked.rejected[0].speaker == "narrator" and checked.rejected[0].ticker == "AAA"


def test_at_most_ten_turns_are_kept() -> None:
    many = [say("host" if i % 2 == 0 else "analyst", f"Point {chr(65 + i)}.") for i in range(12)]
    checked = check_worker_turns("AAA", reply(*many), [], [])
    assert len(checked.turns) == 10
    assert [(r.position, r.reason) for r in checked.rejected] == [(10, "over_limit"), (11, "over_limit")]


def test_fallback_turns_give_the_conclusion_and_their_numbers_are_in_the_debate() -> None:
    turns = fallback_turns("AAA", debate())
    assert [t.speaker for t in turns] == ["host", "analyst"]
    assert "AAA" in turns[0].text and "BUY" in turns[1].text and "0.62" in turns[1].text
    known = known_numbers(debate())
    assert all(new_numbers(t.text, known) == [] for t in turns)
    assert new_numbers("confidence 0.63", known) == ["0.63"]  # the check itself does bite
