"""The retry loop with the scripted provider: feedback between attempts, failure after three."""

from __future__ import annotations

import pytest

from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.strategy_lab.application.code_generator import TemplateCodeGenerator
from stockdesk.strategy_lab.application.generation_loop import MAX_RETRIES, generate_with_feedback
from stockdesk.strategy_lab.application.novelty import duplicate_check
from stockdesk.strategy_lab.application.prompt_builder import PromptBuilder
from stockdesk.strategy_lab.domain.errors import GenerationFailedError
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams, validate_params
from stockdesk.strategy_lab.infrastructure.agents.strategist.agent import SAMPLING, StrategistAgent
from stockdesk.strategy_lab.infrastructure.templates.family_templates import FamilyTemplates
from tests.conftest import scripted_service
from tests.strategy_lab.support import MEAN_REVERSION, PARAMS, REASONING, VOLATILITY, answer


def run(provider: ScriptedProvider, **kwargs: object):
    agent = StrategistAgent(LLMHandle(scripted_service(provider), SAMPLING))
    generator = TemplateCodeGenerator(FamilyTemplates())
    return generate_with_feedback(agent, generator, PromptBuilder().build(), **kwargs)  # type: ignore[arg-type]


def test_a_wrong_value_is_fixed_on_the_second_attempt_with_structured_feedback() -> None:
    provider = ScriptedProvider([answer(momentum_period=25), answer()])
    outcome = run(provider)
    assert outcome.attempts == 2 and outcome.result.success
    assert outcome.result.params == MomentumStrategyParams(**PARAMS)
    assert outcome.result.reasoning == REASONING
    assert "MOMENTUM_PERIOD = 20" in (outcome.result.code or "")
    [error] = outcome.errors
    assert (error.field_path, error.error_type) == ("params.momentum_period", "invalid_value")
    first, second = (r.messages[-1].content for r in provider.requests)
    assert "## VALIDATION ERRORS (Please Fix)" not in first
    assert second.startswith(first)  # the original prompt, then the feedback
    assert "**params.momentum_period**: Invalid value" in second and "Use 20 (closest valid value)" in second
    assert outcome.tokens == 2 * 150  # the scripted provider counts 100 + 50 per call


def test_three_failures_raise_generation_failed_with_every_attempts_errors() -> None:
    provider = ScriptedProvider(["no json here", answer(stop_loss="10%"), answer(n_stocks=7, resample="D")])
    with pytest.raises(GenerationFailedError) as caught:
        run(provider)
    failure = caught.value
    assert failure.attempts == MAX_RETRIES == provider.calls == 3
    assert [e.field_path for e in failure.errors] == [
        "$", "params.stop_loss", "params.n_stocks", "params.resample",
    ]  # fmt: skip
    assert failure.errors[1].error_type == "type_error"
    assert failure.details["attempts"] == 3 and len(failure.details["errors"]) == 4
    assert failure.tokens == 3 * 150
    # the third prompt carries the second attempt's errors, not the first's
    third = provider.requests[2].messages[-1].content
    assert "**params.stop_loss**" in third and "**$**" not in third


def test_a_set_already_tried_is_fed_back_like_a_schema_error() -> None:
    provider = ScriptedProvider([answer(), answer(n_stocks=10)])
    outcome = run(provider, reject=duplicate_check([MomentumStrategyParams(**PARAMS)]))
    assert outcome.attempts == 2 and outcome.result.params and outcome.result.params.n_stocks == 10
    [error] = outcome.errors
    assert error.error_type == "already_tried" and error.field_path == "params"
    retry_prompt = provider.requests[1].messages[-1].content
    assert "Already tried" in retry_prompt and "momentum_period 30" in error.suggestion


def test_each_attempt_is_reported_and_linked_to_the_run_id() -> None:
    seen: list[int] = []
    service = scripted_service(ScriptedProvider([answer(ma_periods=20, momentum_period=30), answer()]))
    outcome = generate_with_feedback(
        StrategistAgent(LLMHandle(service, SAMPLING)),
        TemplateCodeGenerator(FamilyTemplates()),
        PromptBuilder().build(),
        on_attempt=seen.append,
        run_id="run-1:1",
    )
    assert seen == [1, 2] and outcome.attempts == 2
    assert outcome.errors[0].error_type == "inconsistent_values"
    assert service.calls_made("run-1:1") == 2 and service.tokens_used("run-1:1") == 300


def test_a_field_of_another_family_is_fixed_by_switching_family() -> None:
    """The model mixes families; the feedback names the field's family and the retry switches."""
    provider = ScriptedProvider(
        [answer(family="mean_reversion", momentum_period=20), answer(family="momentum")]
    )
    outcome = run(provider)
    assert outcome.attempts == 2 and outcome.result.params == validate_params(PARAMS)
    [error] = outcome.errors
    assert (error.field_path, error.error_type) == ("params.momentum_period", "wrong_family_field")
    retry = provider.requests[1].messages[-1].content
    assert "**params.momentum_period**: Field of another family" in retry
    assert "switch strategy_type to momentum" in retry


def test_the_same_set_is_a_duplicate_only_within_its_family() -> None:
    provider = ScriptedProvider([answer(family="mean_reversion"), answer(family="volatility")])
    outcome = run(
        provider, reject=duplicate_check([validate_params(MEAN_REVERSION), validate_params(PARAMS)])
    )
    assert outcome.attempts == 2 and outcome.result.params == validate_params(VOLATILITY)
    [error] = outcome.errors
    assert error.error_type == "already_tried" and error.given_value == MEAN_REVERSION
    # the neighbour is a mean-reversion set one step away: lookback 20 -> 30
    assert error.suggestion == "Change at least one parameter, e.g. lookback 30, or try another family"
    assert error.message == "this mean_reversion parameter set was already backtested in this run"
