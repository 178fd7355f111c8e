"""The briefing's whole-part checks (script_checks.py): a part short of turns or with another stance
than its debate's conclusion is re-asked once with feedback naming the ticker, then recorded; names
no source given to the writer holds are flagged, sourced ones are not. The real panel over a real
store; the scripted model answers the experts, the moderator and the worker."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from stockdesk.briefing.application import BriefingResult
from stockdesk.briefing.application.names import unknown_names
from stockdesk.briefing.application.results import DraftTurn
from stockdesk.briefing.application.script_checks import script_stance
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.briefing.briefing_support import BriefingModel, briefing_service, seed_briefing_store
from tests.debate.panel_support import AS_OF, PanelScript, decision, turn

REASK = "did not pass the checks"


@pytest.fixture
def repository(database: Database, tmp_path: Path) -> SqlMarketDataRepository:
    return seed_briefing_store(database, tmp_path)


def scripts(ticker: str, *texts: str) -> dict[str, Any]:
    speakers = ("host", "analyst")
    return {
        "ticker": ticker,
        "scripts": [{"speaker": speakers[i % 2], "text": t, "sources": []} for i, t in enumerate(texts)],
    }


SHORT = ("Now to XMPL. What did the panel say?", "The panel says HOLD.")
FULL = (*SHORT, "Why not more?", "Orders are slowing, so HOLD it is.")


class Worker:
    """Answers the first call and the re-ask (its prompt carries the feedback) differently."""

    def __init__(self, first: tuple[str, ...], again: tuple[str, ...]):
        self.first, self.again = first, again
        self.prompts: list[str] = []
        self.calls: Counter[str] = Counter()

    def __call__(self, ticker: str, prompt: str) -> dict[str, Any]:
        self.prompts.append(prompt)
        self.calls[ticker] += 1
        return scripts(ticker, *(self.again if REASK in prompt else self.first))


def run(
    worker: Worker,
    repository: SqlMarketDataRepository,
    settings: Settings,
    database: Database,
    panel: PanelScript | None = None,
) -> BriefingResult:
    model = BriefingModel(panel=panel, worker=worker)
    service = briefing_service(model, repository, settings, database)
    return service.run(AS_OF, "XMPL")


def test_a_part_short_of_turns_is_reasked_naming_the_ticker_and_the_count(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    worker = Worker(SHORT, FULL)
    result = run(worker, repository, settings, database)
    assert worker.calls["XMPL"] == 2
    assert "XMPL: only 2 usable turns. Write 4 to 10 turns" in worker.prompts[1]
    assert [t.text for t in result.script.scripts] == list(FULL)
    assert result.audit.reasks["XMPL"].input == worker.prompts[1]
    assert result.audit.workers["XMPL"].input == worker.prompts[0]
    assert result.audit.findings == []


def test_a_part_still_short_after_the_reask_is_recorded_never_padded(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    worker = Worker(SHORT, SHORT)
    result = run(worker, repository, settings, database)
    assert worker.calls["XMPL"] == 2  # one re-ask, no more
    assert [t.text for t in result.script.scripts] == list(SHORT)  # not padded by code
    assert result.audit.fallback_tickers == []
    assert [(f.ticker, f.kind, f.turns) for f in result.audit.findings] == [("XMPL", "too_few_turns", 2)]


def test_a_full_part_with_the_debate_s_stance_is_not_reasked(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    worker = Worker(FULL, SHORT)
    result = run(worker, repository, settings, database)
    assert worker.calls["XMPL"] == 1 and result.audit.reasks == {} and result.audit.findings == []


def test_a_stance_other_than_the_debate_s_is_reasked_then_flagged(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    sells = PanelScript(moderator=lambda rnd, prompt: decision("end", "SELL", 0.45))
    worker = Worker(FULL, FULL)  # says HOLD twice
    result = run(worker, repository, settings, database, sells)
    assert worker.calls["XMPL"] == 2
    assert "XMPL: the panel's conclusion is SELL, but your script says HOLD" in worker.prompts[1]
    [finding] = result.audit.findings
    assert (finding.ticker, finding.kind, finding.expected, finding.found) == (
        "XMPL",
        "stance_mismatch",
        "SELL",
        "HOLD",
    )


def test_a_stance_fixed_by_the_reask_leaves_no_finding(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    sells = PanelScript(moderator=lambda rnd, prompt: decision("end", "SELL", 0.45))
    fixed = (*SHORT[:1], "Most experts said HOLD.", "And the panel?", "The panel says SELL.")
    worker = Worker(FULL, fixed)
    result = run(worker, repository, settings, database, sells)
    assert worker.calls["XMPL"] == 2 and result.audit.findings == []
    assert result.script.scripts[-1].text == "The panel says SELL."


def test_an_unknown_firm_is_flagged_and_a_sourced_one_is_not(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    panel = PanelScript(expert=lambda role, rnd: turn("HOLD", 0.5, text="Example Widgets opened a plant."))
    said = (
        "Now to XMPL. What did the panel say?",
        "Example Widgets opened a plant, the panel says HOLD.",
        "Who else weighed in?",
        "Goldman Sachs raised its target, so HOLD it is.",
    )
    worker = Worker(said, said)
    result = run(worker, repository, settings, database, panel)
    assert worker.calls["XMPL"] == 1  # names are flagged, not re-asked
    assert [(f.ticker, f.kind, f.name) for f in result.audit.findings] == [
        ("XMPL", "unknown_name", "Goldman Sachs")
    ]
    assert len(result.script.scripts) == 4  # flagged, not dropped


# ---- the detectors alone -------------------------------------------------------------------------------
SOURCES = "Example Widgets beats estimates; 中信证券 raised it; 张三 spoke; Analysts split on widget demand"


@pytest.mark.parametrize(
    "text",
    [
        "Now to XMPL. What did the panel say? The panel says HOLD.",  # sentence openers, ticker, action
        "On Friday, March first, the stock rose. Good morning.",  # calendar words, openers
        "Example Widgets beats estimates.",  # in the sources
        "中信证券认为订单放缓，张三表示谨慎。",  # in the sources
        "该公司和上市公司以及多家银行都认为市场普遍看空，分析师表示，管理层认为，他说。",  # generic words
    ],
)
def test_no_false_positive_on_openers_generic_words_and_sourced_names(text: str) -> None:
    assert unknown_names(text, SOURCES, skip=["XMPL"]) == []


def test_unknown_people_and_firms_are_found_in_english_and_chinese() -> None:
    text = (
        "Goldman Sachs cut it. Bank of America agreed. Tim Cook said so. "
        "据高盛集团表示，摩根士丹利公司称，首席执行官王五表示。"
    )
    assert unknown_names(text, SOURCES) == [
        "Goldman Sachs",
        "Bank of America",
        "Tim Cook",
        "高盛集团",
        "摩根士丹利公司",
        "王五",
    ]


def test_the_stance_is_the_last_action_stated_not_negated() -> None:
    def said(*texts: str) -> str | None:
        return script_stance([DraftTurn(speaker="analyst", text=t) for t in texts])

    assert said("The risk expert said SELL.", "The panel says HOLD.") == "HOLD"
    assert said("The panel is bullish overall.") == "BUY"
    assert said("This is not a SELL.", "We hold our view.") is None  # "hold" the verb is no action
    assert said("面板结论：卖出。") == "SELL"
