"""Who appends to the ledger: every saved session with a verdict, once; evaluation points never."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.coordinator.application import ResearchRequest
from stockdesk.entrypoints.container import AppContainer
from stockdesk.evaluation.domain.dtos import EvaluationMode
from stockdesk.evaluation.infrastructure.adapters.coordinator_source import CoordinatorVerdictSource
from stockdesk.ledger.application import canonical_json
from stockdesk.llm_platform.application.llm_service import LLMService, LLMServiceOptions, ProviderRoute
from stockdesk.shared.config import Settings
from tests.coordinator.support import AS_OF, SYMBOL, pipeline


@pytest.fixture
def app(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> AppContainer:
    container, _, _ = pipeline(settings)
    monkeypatch.setattr(entry, "_container", container)
    return container


def test_an_analysis_appends_its_verdict_once(app: AppContainer, tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    result = CliRunner().invoke(
        entry.app, ["analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--rules-only", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    session = json.loads(out.read_text(encoding="utf-8"))
    [entry_] = app.ledger.service.entries()
    assert (entry_.entry_id, entry_.session_id, entry_.symbol) == (session["id"], session["id"], SYMBOL)
    assert (entry_.mode, entry_.model, entry_.action) == ("rules", "rules", session["verdict"]["action"])
    assert entry_.as_of == AS_OF and entry_.retrospective  # 2024-06-28, appended years later
    assert entry_.verdict_json == canonical_json(session["verdict"])
    assert entry_.probability_up is None  # rules verdicts carry no calibrated probability yet
    experts = json.loads(entry_.experts_json)
    assert set(experts) == set(session["expert_results"])
    assert app.ledger.service.verify().ok


def test_every_session_appends_its_own_entry_and_llm_runs_name_their_model(app: AppContainer) -> None:
    service = app.coordinator.service
    rules = service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF, rules_only=True))
    full = service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF, experts=["technical_analyst"]))
    entries = app.ledger.service.entries()
    assert [e.entry_id for e in entries] == [rules.id, full.id]
    assert entries[1].mode == "full" and entries[1].model != "rules" and entries[1].tokens == full.tokens
    assert entries[0].cost_usd == 0.0 and entries[1].cost_usd is None  # no LLM call; unpriced aliases
    assert entries[0].inputs_hash != entries[1].inputs_hash


def test_evaluation_points_are_not_ledger_entries(app: AppContainer) -> None:
    source = CoordinatorVerdictSource(lambda: app.coordinator.service, EvaluationMode.EXPERTS)
    found = source.verdicts({SYMBOL: [AS_OF]}, ["technical_analyst"])
    assert not isinstance(found[(SYMBOL, AS_OF)], Exception)
    assert app.coordinator.service.list().total == 1  # the point's session is stored ...
    assert app.ledger.service.entries() == []  # ... but it is not the desk's verdict


def test_a_request_can_opt_out_of_the_ledger(app: AppContainer) -> None:
    service = app.coordinator.service
    service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF, rules_only=True, record_verdict=False))
    assert app.ledger.service.entries() == []


def test_the_report_prints_the_desks_one_line_track_record(app: AppContainer, tmp_path: Path) -> None:
    args = ["analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--rules-only"]
    CliRunner().invoke(entry.app, args)
    out = tmp_path / "r.md"
    result = CliRunner().invoke(entry.app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    line = "Track record: no matured live verdicts at 20 days yet (0 live entries); "
    assert line + "2 retrospective entries are reported apart" in out.read_text(encoding="utf-8")
    page = tmp_path / "r.html"
    assert CliRunner().invoke(entry.app, [*args, "--out", str(page)]).exit_code == 0
    assert 'id="track-record"' in page.read_text(encoding="utf-8")


def test_cost_per_verdict_is_zero_without_llm_calls_and_priced_by_the_aliases_otherwise(
    app: AppContainer,
) -> None:
    scripted = app.llm_service._routes[0].provider  # 100 prompt + 50 completion tokens a call
    priced = ProviderRoute("paid", scripted, 0, input_price_per_million=1.0, output_price_per_million=4.0)
    app.__dict__["llm_service"] = LLMService([priced], options=LLMServiceOptions(backoff_seconds=0.0))
    service = app.coordinator.service  # built now, over the priced service
    service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF, rules_only=True))
    paid = service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF, experts=["technical_analyst"]))
    rules, bought = app.ledger.service.entries()
    assert rules.cost_usd == 0.0 and rules.llm_calls == 0
    assert bought.entry_id == paid.id and bought.llm_calls == paid.llm_calls > 0
    assert bought.cost_usd == pytest.approx(paid.llm_calls * (100 * 1.0 + 50 * 4.0) / 1e6)


def test_a_retried_session_appends_its_own_new_verdict_and_a_failed_judge_appends_nothing(
    settings: Settings,
) -> None:
    container, router, _ = pipeline(settings)
    service = container.coordinator.service
    two = ["technical_analyst", "valuation_modeler"]
    router.broken = {"VerdictResult"}  # the judge fails: a session without a verdict
    judged_by_nobody = service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF, experts=two))
    assert judged_by_nobody.verdict == {} and container.ledger.service.entries() == []
    router.broken = {"TechnicalAnalysisOutput"}
    first = service.run(ResearchRequest(symbol=SYMBOL, as_of=AS_OF, experts=two))
    router.broken = set()
    retried = asyncio.run(service.aretry(first.id))
    assert [e.entry_id for e in container.ledger.service.entries()] == [first.id, retried.id]
    container.close()
