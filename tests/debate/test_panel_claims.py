"""Panel turns go through the bull/bear claim round: checked against what the expert was shown, one
repair call with the findings, what still violates dropped; the record reaches the outcome (and the
DebateOutcomeDTO's `claim_checks`) and the turn's audit row."""

from __future__ import annotations

import threading
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.debate.application.services.debate_service import DebateService
from stockdesk.debate.application.services.panel_debate import PanelDebateService
from stockdesk.shared.config import Settings
from stockdesk.shared.db import Database
from tests.debate.panel_support import AS_OF, DIGESTS, SYMBOL, PanelScript, scripted_panel, seed_store, turn

INVENTED = "营收同比增长 37.5%，订单仍在放缓。"  # 37.5 is in nothing the expert was shown
CLEAN = "订单仍在放缓，维持观望。"
REPAIR_HEADER = "上一次回答未通过校验"


@pytest.fixture
def repository(database: Database, tmp_path: Path) -> SqlMarketDataRepository:
    return seed_store(database, tmp_path)


class Repairs:
    """The fundamental expert's round-1 answers in order; every other turn is a clean HOLD."""

    def __init__(self, *texts: str):
        self.texts = texts
        self.calls: Counter[tuple[str, int]] = Counter()
        self._lock = threading.Lock()

    def __call__(self, role: str, rnd: int) -> dict[str, Any]:
        with self._lock:
            self.calls[(role, rnd)] += 1
            n = self.calls[(role, rnd)]
        if role == "fundamental" and rnd == 1:
            return turn("HOLD", 0.5, text=self.texts[min(n, len(self.texts)) - 1])
        return turn("HOLD", 0.5, text=f"{role} 维持观望。")


def run_panel(
    expert: Repairs, repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> tuple[Any, PanelScript, PanelDebateService]:
    script = PanelScript(expert=expert)
    service, _, _ = scripted_panel(script, repository, settings.cache_dir, database)
    return service.run(SYMBOL, AS_OF, DIGESTS), script, service


def test_an_invented_number_is_repaired_once_then_dropped_and_recorded(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    expert = Repairs(INVENTED, INVENTED)
    result, script, _ = run_panel(expert, repository, settings, database)
    assert expert.calls[("fundamental", 1)] == 2  # one repair, no more
    assert expert.calls[("fundamental", 2)] == 1 and expert.calls[("risk", 1)] == 1
    repair_prompt = next(p for p in script.user_prompts if REPAIR_HEADER in p)
    assert "37.5" in repair_prompt and "第 1 轮" in repair_prompt
    said = result.artifact["rounds"][0]["fundamental"]["text"]
    assert "37.5" not in said and "订单仍在放缓" not in said  # the offending sentence is gone
    record = result.outcome.claim_checks["fundamental/1"]
    assert record["retried"] is True and record["dropped"]
    assert [v["term"] for v in record["violations"]] == ["37.5"]
    assert {v["kind"] for v in record["first_violations"]} == {"ungrounded_number"}
    assert result.outcome.claim_checks["risk/1"] == {
        "first_violations": [], "retried": False, "violations": [], "dropped": [],
    }  # fmt: skip
    rows = [a for a in result.audit if a["agent"] == "panel.fundamental" and a["round"] == 1]
    assert [r["repair"] for r in rows] == [False, True]
    assert "claim_checks" not in rows[0] and rows[1]["claim_checks"] == record


def test_a_repaired_turn_keeps_the_repair_and_the_record_says_so(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    expert = Repairs(INVENTED, CLEAN)
    result, _, _ = run_panel(expert, repository, settings, database)
    assert result.artifact["rounds"][0]["fundamental"]["text"] == CLEAN
    record = result.outcome.claim_checks["fundamental/1"]
    assert record["retried"] is True and record["first_violations"] and not record["violations"]
    assert not record["dropped"]


def test_numbers_the_expert_was_shown_pass_without_a_repair(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    """A view's confidence its prompt shows (0.66) and the expert's own confidence are not invented."""
    expert = Repairs("技术面信号为 0.66 的看多，我给 0.5 的置信度。")
    result, _, _ = run_panel(expert, repository, settings, database)
    assert expert.calls[("fundamental", 1)] == 1
    assert result.outcome.claim_checks["fundamental/1"]["retried"] is False


def test_the_panel_record_reaches_the_debate_outcome_dto(
    repository: SqlMarketDataRepository, settings: Settings, database: Database
) -> None:
    expert = Repairs(INVENTED, INVENTED)
    script = PanelScript(expert=expert)
    panel, _, _ = scripted_panel(script, repository, settings.cache_dir, database)
    unused: Any = None
    service = DebateService(unused, unused, unused, panel, today=lambda: date(2024, 3, 1))
    dto = service.run(SYMBOL, DIGESTS, mode="panel", as_of=AS_OF)
    assert dto.claim_checks["fundamental/1"]["violations"][0]["term"] == "37.5"
    assert set(dto.claim_checks) == {
        f"{r}/{n}" for r in ("fundamental", "risk", "growth", "sentiment") for n in (1, 2)
    }
