"""BriefingService end to end (spec 7.1): the real panel debates each ticker over a real SQLite store, the
scripted model answers experts, moderator, worker and refiner; merge in the given ticker order whatever
order the debates finish in; the worker's inputs (debate JSON, 5-minute bars, base script) and the
checks on what it writes; one failing ticker fails the whole briefing, naming it."""

from __future__ import annotations

import re
import threading
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from stockdesk.briefing.application import BriefingResult
from stockdesk.briefing.domain.errors import BriefingTickerError
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from stockdesk.shared.errors import BadRequestException, NotFoundException
from tests.briefing.briefing_support import (
    AAPL_DAY,
    TICKERS,
    BriefingModel,
    base_script,
    briefing_service,
    llm_over,
    plain_worker,
    seed_briefing_store,
)
from tests.debate.panel_support import AS_OF, PanelScript, decision, turn

ROLES = ("fundamental", "risk", "growth", "sentiment")


@pytest.fixture
def repository(database: Database, tmp_path: Path) -> SqlMarketDataRepository:
    return seed_briefing_store(database, tmp_path)


def run(
    model: BriefingModel,
    repository: SqlMarketDataRepository,
    settings: Settings,
    database: Database,
    tickers: Any = TICKERS,
    base: Any = None,
    *,
    day: date = AS_OF,
    slots: int = 2,
    **kw: Any,
) -> BriefingResult:
    service = briefing_service(model, repository, settings, database, slots=slots)
    return service.run(day, tickers, base, **kw)


def test_a_briefing_debates_each_ticker_writes_merges_in_order_and_refines(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    progress: list[tuple[str, str | None]] = []
    model = BriefingModel(refiner=lambda prompt: {"edits": [{"id": 4, "text": "From margins to ZMPL now."}]})
    result = run(
        model, repository, settings, database, "zmpl, XMPL,ympl,xmpl", base_script(),
        on_progress=lambda stage, ticker: progress.append((stage, ticker)),
    )  # fmt: skip
    script = result.script
    assert script.user_tickers == ["ZMPL", "XMPL", "YMPL"] and script.date == "20240301"
    assert [c.name for c in script.chapter] == [
        "opening",
        "theme",
        "ticker:ZMPL",
        "ticker:XMPL",
        "ticker:YMPL",
    ]
    assert [(s.ticker, s.start_id, s.end_id) for s in result.sections] == [
        ("ZMPL", 4, 7),
        ("XMPL", 8, 11),
        ("YMPL", 12, 15),
    ]
    assert [t.id for t in script.scripts] == list(range(16))
    assert script.scripts[4].text == "From margins to ZMPL now." and script.scripts[8].text.startswith(
        "Now to XMPL"
    )
    assert [e.status for e in result.audit.edits] == ["applied"]

    assert list(result.debates) == ["ZMPL", "XMPL", "YMPL"]
    for ticker, artifact in result.debates.items():
        assert set(artifact) == {"ticker", "date", "rounds", "conclusion"} and artifact["ticker"] == ticker
        assert len(artifact["rounds"]) == 2  # the panel's minimum; the moderator ended it
    assert model.panel.calls["moderator"] == 3 and model.panel.expert_calls == 3 * 2 * 4

    worker = model.worker_prompts["XMPL"]
    assert "Stock: XMPL (2 of 3 today: ZMPL, XMPL, YMPL)" in worker and "Date: 2024-03-01" in worker
    assert '"conclusion": {"text": "panel says HOLD", "action": "HOLD", "confidence": 0.6}' in worker
    assert "3 analyst: Gross margins rose 41.5% at one maker." in worker  # the base script
    assert "no data (no_intraday_data)" in worker  # the store has no 5-minute bars for XMPL
    assert result.audit.workers["XMPL"].input == worker and result.audit.workers["XMPL"].tokens > 0
    refiner = model.refiner_prompts[0]
    assert "ZMPL: ids 4-7" in refiner and '{"id": 15, "speaker": "analyst"' in refiner
    assert result.audit.refiner.input == refiner

    per_ticker = [p for p in progress if p[0] != "refine"]
    assert sorted(per_ticker) == sorted(
        (s, t) for t in ("ZMPL", "XMPL", "YMPL") for s in ("debate", "script")
    )
    assert progress[-1] == ("refine", None)
    for ticker in ("ZMPL", "XMPL", "YMPL"):
        assert progress.index(("debate", ticker)) < progress.index(("script", ticker))


def test_the_ticker_order_is_kept_when_the_debates_finish_out_of_order(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    # a chain, so the finishing order is certain: YMPL's debate waits for ZMPL's script, XMPL's
    # for YMPL's (holding XMPL alone left YMPL racing it on a busy machine)
    after_z, after_y = threading.Event(), threading.Event()
    model = BriefingModel(
        hold={"YMPL": after_z, "XMPL": after_y}, release_on={"ZMPL": after_z, "YMPL": after_y}
    )
    result = run(model, repository, settings, database, TICKERS, slots=3)
    assert after_z.is_set() and after_y.is_set()
    assert model.worker_order == ["ZMPL", "YMPL", "XMPL"]  # XMPL finished last
    assert [s.ticker for s in result.sections] == TICKERS  # ... and still comes first
    assert [c.name for c in result.script.chapter] == [f"ticker:{t}" for t in TICKERS]
    assert result.script.scripts[0].text == "Now to XMPL. What did the panel say?"


def test_the_worker_sees_the_day_s_5_minute_bars_and_may_quote_only_their_numbers(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    def worker(ticker: str, prompt: str) -> dict[str, Any]:
        return {
            "ticker": ticker,
            "scripts": [
                {"speaker": "host", "text": "AAPL opened at 217.96 and touched a high of 218.18."},
                {"speaker": "analyst", "text": "It closed at 217.38 on a last-bar volume of 1,309,326."},
                {"speaker": "analyst", "text": "At one point it traded at 219.99."},  # in no bar
            ],
        }

    model = BriefingModel(worker=worker)
    result = run(model, repository, settings, database, "AAPL", day=AAPL_DAY)
    prompt = model.worker_prompts["AAPL"]
    assert "## AAPL 5-minute bars on 2024-07-26" in prompt
    assert "09:30 217.96 218.18 217.95 218.06 1166082" in prompt
    assert "15:55 217.42 217.51 217.24 217.38 1309326" in prompt
    assert len(re.findall(r"^\d\d:\d\d ", prompt, re.MULTILINE)) == 21  # every bar of the day, no other day
    assert [t.text for t in result.script.scripts] == [
        "AAPL opened at 217.96 and touched a high of 218.18.",
        "It closed at 217.38 on a last-bar volume of 1,309,326.",
    ]
    rejected = result.audit.rejected_turns
    assert [(r.position, r.reason, r.numbers) for r in rejected] == [(2, "new_number", ["219.99"])]


def test_invented_numbers_are_dropped_and_a_ticker_left_without_turns_gets_fallback_turns(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    def worker(ticker: str, prompt: str) -> dict[str, Any]:
        if ticker == "YMPL":  # every turn invents a number
            return {"ticker": ticker, "scripts": [{"speaker": "host", "text": f"{ticker} rose 33% today."}]}
        return plain_worker(ticker, prompt)

    model = BriefingModel(
        worker=worker, panel=PanelScript(moderator=lambda rnd, p: decision("end", "SELL", 0.45))
    )
    result = run(model, repository, settings, database)
    assert result.audit.fallback_tickers == ["YMPL"]
    section = next(s for s in result.sections if s.ticker == "YMPL")
    fallback = result.script.scripts[section.start_id : section.end_id + 1]
    assert [(t.speaker, t.text) for t in fallback] == [
        ("host", "Next up is YMPL. What did the panel conclude?"),
        ("analyst", "The panel's conclusion on YMPL is SELL, with a confidence of 0.45."),
    ]
    assert [(r.ticker, r.reason, r.numbers) for r in result.audit.rejected_turns] == [
        ("XMPL", "new_number", ["0.6"]),  # plain_worker's 0.6 is not this panel's 0.45
        ("YMPL", "new_number", ["33"]),
        ("ZMPL", "new_number", ["0.6"]),
    ]
    assert [c.name for c in result.script.chapter] == [f"ticker:{t}" for t in TICKERS]  # every ticker has one


def test_an_unusable_worker_or_refiner_answer_is_recorded_not_fatal(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    model = BriefingModel(
        worker=lambda ticker, prompt: (
            "I would rather not." if ticker == "ZMPL" else plain_worker(ticker, prompt)
        ),
        refiner=lambda prompt: "no edits today",
    )
    result = run(model, repository, settings, database)
    assert result.audit.fallback_tickers == ["ZMPL"]
    assert result.audit.workers["ZMPL"].error and "I would rather not." in result.audit.workers["ZMPL"].output
    assert result.audit.refiner.error and result.audit.edits == []
    assert len(result.script.scripts) == 4 + 4 + 2


def test_sources_the_worker_cites_must_come_from_the_debate_or_the_base_script(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    panel = PanelScript(expert=lambda role, rnd: turn("HOLD", 0.5, ["C1"] if role == "risk" else []))
    fabricated = {"type": "chart", "ticker": "XMPL", "start_date": "2023-01-01", "end_date": "2024-03-01"}

    def worker(ticker: str, prompt: str) -> dict[str, Any]:
        turns = plain_worker(ticker, prompt)
        turns["scripts"][1]["sources"] = ["C1", fabricated, "N7"]
        turns["scripts"][3]["sources"] = ["N1"]  # the base script's theme article
        return turns

    model = BriefingModel(panel=panel, worker=worker)
    result = run(model, repository, settings, database, "XMPL", base_script())
    assert "C1 日线图 XMPL 2024-01-31~2024-03-01" in model.worker_prompts["XMPL"]
    assert "N1 新闻《Margins widen》" in model.worker_prompts["XMPL"]
    turns = result.script.scripts
    assert [s.model_dump() for s in turns[5].sources] == [
        {"type": "chart", "ticker": "XMPL", "start_date": "2024-01-31", "end_date": "2024-03-01"}
    ]
    assert [s.model_dump() for s in turns[7].sources] == [
        {"type": "article", "pk": "id#THEME:000000000001", "title": "Margins widen"}
    ]
    assert result.audit.dropped_sources == {"XMPL": 2}  # the fabricated window and the unlisted N7
    assert all(s.model_dump() != fabricated for t in turns for s in t.sources)


def test_max_rounds_bounds_every_debate(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    split = {"fundamental": "BUY", "risk": "SELL", "growth": "BUY", "sentiment": "HOLD"}
    panel = PanelScript(
        expert=lambda role, rnd: turn(split[role], 0.8), moderator=lambda rnd, p: decision("continue")
    )
    model = BriefingModel(panel=panel)
    result = run(model, repository, settings, database, "XMPL,YMPL", max_rounds=3)
    assert [len(a["rounds"]) for a in result.debates.values()] == [3, 3]  # the default panel allows 4
    with pytest.raises(BadRequestException, match="at least the panel's minimum of 2 rounds") as caught:
        run(model, repository, settings, database, "XMPL", max_rounds=1)
    assert caught.value.code == "INVALID_MAX_ROUNDS"


def test_an_unknown_ticker_fails_before_any_llm_call_naming_it(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    model = BriefingModel()
    with pytest.raises(NotFoundException) as caught:
        run(model, repository, settings, database, "XMPL,NOPE,AAPL")  # AAPL has no bars in Feb 2024
    assert caught.value.code == "UNKNOWN_TICKER" and caught.value.http_status == 404
    assert "no daily bars for NOPE, AAPL from 2024-01-31 to 2024-03-01" in caught.value.message
    assert model.llm_calls == 0


def test_a_failing_debate_fails_the_whole_briefing_naming_the_ticker(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    model = BriefingModel(fail_panel_for="YMPL")
    with pytest.raises(BriefingTickerError) as caught:
        run(model, repository, settings, database)
    assert caught.value.ticker == "YMPL" and caught.value.message.startswith("YMPL: ")
    assert caught.value.code == "LLM_OUTPUT_PARSE_ERROR" and caught.value.http_status == 422
    assert "YMPL" not in model.worker_prompts and model.refiner_prompts == []


def test_every_call_of_a_briefing_runs_in_the_caller_s_llm_run(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    model = BriefingModel()
    llm = llm_over(model, database)
    service = briefing_service(model, repository, settings, database, slots=3, llm=llm)
    with llm.run_scope("briefing-run"):
        service.run(AS_OF, TICKERS)
    assert sorted(model.worker_order) == sorted(TICKERS) and len(model.refiner_prompts) == 1  # one call each
    assert llm.tokens_used("briefing-run") == 150 * model.llm_calls  # the run id reached every thread
