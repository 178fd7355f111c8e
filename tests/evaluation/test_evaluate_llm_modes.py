"""Experts and full modes through the real coordinator with a scripted LLM: sessions, cache, baselines."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.domain.dtos import EvaluationConfig
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.config import Settings
from tests.conftest import scripted_service
from tests.coordinator.support import Router
from tests.evaluation.market import populate, symbols

NAMES = symbols(2)


@pytest.fixture
def app(settings: Settings) -> Iterator[tuple[AppContainer, ScriptedProvider]]:
    container = AppContainer(settings)
    populate(container.database, NAMES)
    provider = ScriptedProvider([Router()])
    container.__dict__["llm_service"] = scripted_service(provider, database=container.database)
    yield container, provider
    container.close()


def config(**changes: object) -> EvaluationConfig:
    base = dict(
        symbols=NAMES,
        start=date(2023, 3, 1),
        end=date(2023, 5, 31),
        every=30,
        horizons=[5],
        mode="experts",
        experts=["valuation_modeler", "technical_analyst", "financial_auditor"],
    )
    return EvaluationConfig.model_validate({**base, **changes})


def test_experts_mode_records_a_session_per_point_and_compares_with_the_rules(
    app: tuple[AppContainer, ScriptedProvider],
) -> None:
    container, provider = app
    report = container.evaluation.service.run(config())
    assert len(report.points) == 6 and not report.failed  # 3 dates x 2 symbols
    assert report.llm_calls == provider.calls > 0 and report.tokens > 0
    for point in report.points:
        session = container.coordinator.service.get(point.session_id)  # the audit trail of the verdict
        assert session.as_of == point.as_of and session.verdict["source"] == "rules"
        assert session.llm_settings.get("verdict_by_rules") is True and not session.debate_outcome
        assert set(point.experts) == {"valuation_modeler", "technical_analyst", "financial_auditor"}
    assert {"experts", "rules_baseline", "always_hold", "buy_and_hold"} == set(report.metrics)
    interval = report.metrics["experts"]["5"]["bootstrap"]["hit_rate"]
    assert interval["resamples"] > 0 and "rules baseline" in report.summary


def test_a_rerun_costs_no_llm_call_and_a_new_job_on_the_same_points_is_answered_by_the_cache(
    app: tuple[AppContainer, ScriptedProvider],
) -> None:
    container, provider = app
    first = container.evaluation.service.run(config())
    calls = provider.calls
    again = container.evaluation.service.run(config())
    assert again.llm_calls == 0 and provider.calls == calls  # resumed: nothing left to compute
    other = container.evaluation.service.run(config(horizons=[5, 10]))  # another job, same verdicts
    assert other.resumed == 0 and other.llm_calls == 0 and other.cache_hits >= calls
    assert provider.calls == calls
    assert [(p.action, p.confidence) for p in other.points] == [
        (p.action, p.confidence) for p in first.points
    ]


def test_full_mode_runs_the_debate_and_the_judge(app: tuple[AppContainer, ScriptedProvider]) -> None:
    container, _ = app
    report = container.evaluation.service.run(
        config(mode="full", symbols=NAMES[:1], end=date(2023, 4, 28), every=60)
    )
    assert len(report.points) == 1 and not report.failed
    session = container.coordinator.service.get(report.points[0].session_id)
    assert session.debate_outcome and session.verdict["action"] == report.points[0].action
