"""Briefing fan-in (spec 7.3/7.4): ids renumbered 0..n-1 in the given ticker order, ticker sections and
chapters, the base script's chapters kept and its closing moved after the tickers; strict base scripts
and ticker lists with one-line 400s."""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

import pytest

from stockdesk.briefing.application import normalise_tickers, read_base_script
from stockdesk.briefing.application.merge import before_closing, merge_script
from stockdesk.briefing.application.results import DraftTurn
from stockdesk.briefing.domain.dtos import BriefingScript
from stockdesk.debate.domain.dtos.panel import ChartSource
from stockdesk.shared.errors import BadRequestException
from tests.briefing.briefing_support import base_script

DAY = date(2024, 3, 1)


def drafts(ticker: str, count: int) -> list[DraftTurn]:
    return [
        DraftTurn(speaker="host" if i % 2 == 0 else "analyst", text=f"{ticker} turn {i}")
        for i in range(count)
    ]


def contiguous(script: BriefingScript) -> None:
    """Chapters cover 0..n-1 in order without gaps; every turn's id is its position."""
    assert [t.id for t in script.scripts] == list(range(len(script.scripts)))
    covered = 0
    for chapter in script.chapter:
        assert chapter.start_id == covered and chapter.end_id >= chapter.start_id
        covered = chapter.end_id + 1
    assert covered == len(script.scripts)


def test_merge_keeps_the_given_ticker_order_renumbers_and_adds_sections_and_chapters() -> None:
    base = read_base_script(base_script(), DAY)
    chart = ChartSource(ticker="BBB", start_date="2024-01-31", end_date="2024-03-01")
    parts = {
        "AAA": drafts("AAA", 2),
        "BBB": [DraftTurn(speaker="host", text="BBB opens", sources=[chart]), *drafts("BBB", 2)],
        "CCC": drafts("CCC", 4),
    }
    merged = merge_script("20240301", ["CCC", "AAA", "BBB"], base, parts)  # not alphabetical, not dict order
    script = merged.script
    assert set(json.loads(script.model_dump_json())) == {"date", "user_tickers", "chapter", "scripts"}
    assert script.user_tickers == ["CCC", "AAA", "BBB"]
    assert [(c.name, c.start_id, c.end_id) for c in script.chapter] == [
        ("opening", 0, 1),
        ("theme", 2, 3),
        ("ticker:CCC", 4, 7),
        ("ticker:AAA", 8, 9),
        ("ticker:BBB", 10, 12),
    ]
    assert [(s.ticker, s.start_id, s.end_id) for s in merged.sections] == [
        ("CCC", 4, 7),
        ("AAA", 8, 9),
        ("BBB", 10, 12),
    ]
    contiguous(script)
    assert [t.text for t in script.scripts[4:8]] == [f"CCC turn {i}" for i in range(4)]
    assert script.scripts[10].text == "BBB opens" and script.scripts[10].sources == [chart]
    assert script.scripts[3].sources[0].type == "article"  # the base's own source travels with its turn


def test_a_closing_chapter_moves_after_the_tickers() -> None:
    base = read_base_script(base_script(closing=True), DAY)
    merged = merge_script(
        "20240301", ["AAA", "BBB"], base, {"AAA": drafts("AAA", 3), "BBB": drafts("BBB", 2)}
    )
    assert [(c.name, c.start_id, c.end_id) for c in merged.script.chapter] == [
        ("opening", 0, 1),
        ("theme", 2, 3),
        ("ticker:AAA", 4, 6),
        ("ticker:BBB", 7, 8),
        ("closing", 9, 10),
    ]
    assert [t.text for t in merged.script.scripts[9:]] == ["That is all for today.", "See you tomorrow."]
    contiguous(merged.script)
    shown = before_closing(base)  # what the workers continue from
    assert shown is not None and [c.name for c in shown.chapter] == ["opening", "theme"]
    assert len(shown.scripts) == 4


def test_without_a_base_script_the_tickers_start_at_zero_and_every_ticker_needs_turns() -> None:
    merged = merge_script("20240301", ["AAA"], None, {"AAA": drafts("AAA", 2)})
    assert [(c.name, c.start_id, c.end_id) for c in merged.script.chapter] == [("ticker:AAA", 0, 1)]
    with pytest.raises(ValueError, match="no turns for BBB"):
        merge_script("20240301", ["AAA", "BBB"], None, {"AAA": drafts("AAA", 2), "BBB": []})


def _base(**changes: Any) -> dict[str, Any]:
    data = base_script()
    data.update(changes)
    return data


def _chapters(*spans: tuple[str, int, int]) -> list[dict[str, Any]]:
    return [{"name": name, "start_id": start, "end_id": end} for name, start, end in spans]


def _turn(**fields: Any) -> list[dict[str, Any]]:
    return [{"id": 0, "speaker": "host", "text": "x", **fields}]


def _turns(*ids: int) -> list[dict[str, Any]]:
    return [{"id": i, "speaker": "host", "text": f"turn {i}", "sources": []} for i in ids]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (["not", "an", "object"], "expected a JSON object"),
        (_base(scripts=_turns(0, 2, 1, 3)), "turn ids must be 0..3 in order (turn 1 has id 2)"),
        (
            _base(chapter=_chapters(("opening", 0, 1), ("theme", 3, 3))),
            "chapter 'theme' covers 3..3",
        ),
        (
            _base(chapter=_chapters(("opening", 0, 2), ("theme", 2, 3))),
            "this one should start at 3",
        ),
        (_base(chapter=_chapters(("opening", 0, 2))), "chapters cover ids 0..2 but there are 4 turns"),
        (_base(chapter=[]), "it has turns but no chapter"),
        (
            _base(chapter=_chapters(("ticker:AAPL", 0, 3))),
            "chapter names starting with 'ticker:' are reserved",
        ),
        (
            _base(chapter=_chapters(("closing", 0, 1), ("theme", 2, 3))),
            "the 'closing' chapter must be the last one",
        ),
        (
            _base(chapter=_chapters(("theme", 0, 1), ("theme", 2, 3))),
            "chapter 'theme' appears twice",
        ),
        (_base(scripts=[{"id": 0, "speaker": "host"}]), "scripts.0.text: Field required"),
        (_base(scripts=_turn(voice="m3")), "scripts.0.voice: Extra inputs"),
        (_base(scripts=_turn(sources=[{"type": "tweet"}])), "scripts.0.sources.0"),
        (_base(extra=1), "extra: Extra inputs are not permitted"),
        (_base(date="20240229"), "it is dated 20240229, the briefing is for 20240301"),
    ],
    ids=[
        "not-object", "ids-out-of-order", "chapter-gap", "chapter-overlap", "chapters-short", "no-chapter",
        "reserved-name", "closing-not-last", "duplicate-name", "missing-text", "extra-turn-key", "bad-source",
        "extra-key", "other-date",
    ],
)  # fmt: skip
def test_a_bad_base_script_is_a_one_line_400(data: Any, message: str) -> None:
    with pytest.raises(BadRequestException) as caught:
        read_base_script(data, DAY)
    error = caught.value
    assert error.code == "BAD_BASE_SCRIPT" and error.http_status == 400
    assert message in error.message and "\n" not in error.message
    assert error.message.startswith("base script: ")


def test_a_base_script_keeps_its_own_speakers_and_may_be_empty() -> None:
    data = base_script()
    data["scripts"][0]["speaker"] = "guest"
    base = read_base_script(data, DAY)
    assert base.speakers() == ["guest", "analyst", "host"]
    assert read_base_script({"chapter": [], "scripts": []}, DAY).scripts == []


def test_tickers_are_upper_cased_deduplicated_in_order_and_limited() -> None:
    assert normalise_tickers(" aapl,NVDA, aapl ,brk.b,600519.sh") == ["AAPL", "NVDA", "BRK.B", "600519.SH"]
    assert normalise_tickers(["goog", "GOOG", "msft"]) == ["GOOG", "MSFT"]
    assert len(normalise_tickers([f"T{i}" for i in range(10)] + ["T0"])) == 10
    for bad, message in [
        ("", "give at least one ticker"),
        (" , ", "give at least one ticker"),
        ([f"T{i}" for i in range(11)], "at most 10 tickers per briefing (got 11)"),
        ("AAPL,NV DA", "bad ticker 'NV DA'"),
        ("AAPL,$TSLA", "bad ticker '$TSLA'"),
        ([1], "tickers must be text"),
    ]:
        with pytest.raises(BadRequestException, match=re.escape(message)) as caught:
            normalise_tickers(bad)  # type: ignore[arg-type]
        assert caught.value.code == "INVALID_TICKERS" and caught.value.http_status == 400
