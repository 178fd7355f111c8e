"""analyze --reflection: the judge is shown the ledger's matured verdicts on the symbol."""

from __future__ import annotations

from datetime import date

from stockdesk.coordinator.application import ResearchRequest
from stockdesk.coordinator.presentation.reports.render import render_report
from stockdesk.judge.application.services.lessons import HEADER
from stockdesk.shared.config import Settings
from tests.coordinator.support import SYMBOL, pipeline


def test_a_reflecting_judge_sees_the_ledgers_matured_verdicts_and_no_others(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    service = container.coordinator.service
    try:
        for day in (date(2024, 2, 1), date(2024, 3, 1), date(2024, 6, 3)):  # into the ledger
            service.run(ResearchRequest(symbol=SYMBOL, as_of=day, rules_only=True))
        plain = service.run(ResearchRequest(symbol=SYMBOL, as_of=date(2024, 6, 14)))
        assert plain.verdict["lessons"] == [] and HEADER not in plain.verdict["input"]
        asked = service.run(ResearchRequest(symbol=SYMBOL, as_of=date(2024, 6, 14), reflection=True))
    finally:
        container.close()
    lessons = asked.verdict["lessons"]
    # 06-03 has no 20-day outcome by 06-14; the two older ones do, newest first
    assert [x["as_of"] for x in lessons] == ["2024-03-01", "2024-02-01"]
    assert all(x["horizon"] == 20 and x["action"] in ("BUY", "SELL", "HOLD") for x in lessons)
    assert HEADER in asked.verdict["input"] and "2024-03-01 裁决" in asked.verdict["input"]
    assert asked.llm_settings.get("reflection") is True and router.count("VerdictResult") >= 2
    markdown = render_report(asked, "md")
    assert "Lessons shown to the judge" in markdown and f"2024-03-01 {lessons[0]['action']}" in markdown
    assert "Lessons shown to the judge" not in render_report(plain, "md")
