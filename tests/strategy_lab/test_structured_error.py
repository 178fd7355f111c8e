"""C4 of the strategy JSON-params spec: validation errors come back field by field in the spec's format
(the momentum family; the union's own errors are in test_union_feedback.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from stockdesk.strategy_lab.application.code_generator import GenerationResult, TemplateCodeGenerator
from stockdesk.strategy_lab.application.feedback import (
    StructuredErrorFeedback,
    closest_allowed,
    details_from_validation_error,
    json_error_detail,
)
from stockdesk.strategy_lab.domain.errors import ValidationErrorDetail
from stockdesk.strategy_lab.domain.params import (
    PARAM_FIELDS,
    MomentumStrategyParams,
    StrategyParamJSON,
    validate_params,
)
from stockdesk.strategy_lab.infrastructure.templates.family_templates import FamilyTemplates
from tests.strategy_lab.support import REASONING_SPEC as REASONING
from tests.strategy_lab.support import VALID

# The spec's "Error Feedback Format" example, verbatim.
SPEC_EXAMPLE = """## VALIDATION ERRORS (Please Fix)

1. **params.momentum_period**: Invalid value
   - Given: 25
   - Allowed: [5, 10, 20, 30]
   - Suggestion: Use 20 (closest valid value)

2. **params.stop_loss**: Type error
   - Given: "10%"
   - Expected: float
   - Allowed: [0.08, 0.10, 0.12, 0.15]
   - Suggestion: Use 0.10 instead of "10%"

Please output corrected JSON with valid values."""


def request_json(**changes: Any) -> str:
    """The JSON section of a momentum answer; a field changed to ... is left out."""
    params = {
        name: value
        for name, value in {"strategy_type": "momentum", **VALID, **changes}.items()
        if value is not ...
    }
    return json.dumps({"params": params})


def answer(reasoning: str = REASONING, **changes: Any) -> str:
    """A model answer: the REASONING section, then the JSON section in a ```json fence."""
    return f"REASONING:\n{reasoning}\n\nJSON:\n```json\n{request_json(**changes)}\n```"


@pytest.fixture
def generator() -> TemplateCodeGenerator:
    return TemplateCodeGenerator(FamilyTemplates())


def errors_of(raw: str) -> list[ValidationErrorDetail]:
    with pytest.raises(ValidationError) as caught:
        StrategyParamJSON.model_validate_json(raw)
    return details_from_validation_error(caught.value)


def test_invalid_momentum_period_returns_structured_error(generator: TemplateCodeGenerator):
    """Invalid value: a wrong momentum_period comes back with its path, the allowed values and a fix."""
    result = generator.generate(answer(momentum_period=25))
    assert result.success is False
    assert result.code is None
    assert len(result.errors) == 1
    error = result.errors[0]
    assert error.field_path == "params.momentum_period"
    assert error.error_type == "invalid_value"
    assert error.given_value == 25
    assert error.allowed_values == [5, 10, 20, 30]
    assert "20" in error.suggestion


def test_schema_error_is_not_reported_as_json_extraction_error(generator: TemplateCodeGenerator):
    """Regression: pydantic's ValidationError is a ValueError; it must not land in the JSON-error branch."""
    result = generator.generate(answer(momentum_period=25, catalyst_type="eps"))
    assert [e.field_path for e in result.errors] == ["params.momentum_period", "params.catalyst_type"]
    assert all(e.error_type != "json_error" for e in result.errors)
    assert "unknown" not in {e.field_path for e in result.errors}


@pytest.mark.parametrize(
    ("given", "suggested"),
    [(25, 20), (15, 10), (7, 5), (7.5, 5), (8, 10), (100, 30), (-3, 5)],
)
def test_closest_number_ties_go_to_the_lower_value(given: float, suggested: int):
    assert closest_allowed("momentum_period", given) == suggested
    (error,) = errors_of(request_json(momentum_period=given))
    assert (error.error_type, error.suggestion) == ("invalid_value", f"Use {suggested} (closest valid value)")


@pytest.mark.parametrize(
    ("field", "given", "suggested"),
    [
        ("resample", "w", "W"),
        ("resample", "monthly", "M"),
        ("catalyst_type", "Earnings", "earnings"),
        ("catalyst_type", "revenues", "revenue"),
        ("catalyst_type", "earning", "earnings"),
        ("stop_loss", 0.11, 0.10),
        ("stop_loss", 0.135, 0.12),
        ("stop_loss", 12, 0.12),
        ("ma_periods", 75, 60),
    ],
)
def test_closest_value_for_strings_and_fractions(field: str, given: Any, suggested: Any):
    assert closest_allowed(field, given) == suggested


def test_percent_string_stop_loss_is_a_type_error():
    (error,) = errors_of(request_json(stop_loss="10%"))
    assert (error.field_path, error.error_type, error.expected_type) == (
        "params.stop_loss",
        "type_error",
        "float",
    )
    assert error.given_value == "10%"
    assert error.suggestion == 'Use 0.10 instead of "10%"'
    (error,) = errors_of(request_json(stop_loss="0.12"))
    assert (error.error_type, error.suggestion) == ("type_error", 'Use 0.12 instead of "0.12"')
    (error,) = errors_of(request_json(n_stocks="10 stocks"))
    assert (error.error_type, error.expected_type) == ("type_error", "int")
    assert error.suggestion == 'Use 10 instead of "10 stocks"'


def test_missing_field_names_an_allowed_example(generator: TemplateCodeGenerator):
    result = generator.generate(answer(n_stocks=...))
    (error,) = result.errors
    assert (error.field_path, error.error_type) == ("params.n_stocks", "missing_field")
    assert error.allowed_values == [5, 10, 15, 20]
    assert error.suggestion == 'Add "n_stocks": 10 (or another allowed value)'
    feedback = result.get_feedback_prompt()
    assert "1. **params.n_stocks**: Missing field\n   - Allowed: [5, 10, 15, 20]\n" in feedback
    assert "Given" not in feedback


def test_missing_params_and_an_unknown_top_level_field(generator: TemplateCodeGenerator):
    result = generator.generate(f'REASONING:\n{REASONING}\n\nJSON:\n{{"answer": 1}}')
    assert [(e.field_path, e.error_type) for e in result.errors] == [
        ("params", "missing_field"),
        ("answer", "unknown_field"),
    ]
    assert "strategy_type" in result.errors[0].suggestion
    assert result.errors[1].allowed_values == ["params"]


def test_an_empty_reasoning_section_is_too_short(generator: TemplateCodeGenerator):
    (error,) = generator.generate(f"REASONING:\n\nJSON:\n{request_json()}").errors
    assert (error.field_path, error.error_type) == ("reasoning", "too_short")
    assert error.suggestion.endswith("you wrote 0")


@pytest.mark.parametrize(
    ("reasoning", "error_type", "wrote"),
    [("Momentum works.", "too_short", "you wrote 15"), ("x" * 501, "too_long", "you wrote 501")],
)
def test_reasoning_length_errors_name_the_bounds(
    generator: TemplateCodeGenerator, reasoning: str, error_type: str, wrote: str
):
    result = generator.generate(answer(reasoning=reasoning))
    (error,) = result.errors
    assert (error.field_path, error.error_type) == ("reasoning", error_type)
    assert result.params == MomentumStrategyParams(**VALID) and result.code is None  # the JSON was fine
    assert "50" in error.suggestion and "500" in error.suggestion and wrote in error.suggestion


def test_momentum_longer_than_ma_is_inconsistent(generator: TemplateCodeGenerator):
    (error,) = generator.generate(answer(momentum_period=30, ma_periods=20)).errors
    assert (error.field_path, error.error_type) == ("params", "inconsistent_values")
    assert error.given_value == {"momentum_period": 30, "ma_periods": 20}
    assert error.suggestion.startswith("Use ma_periods >= 30, e.g. 60, or momentum_period <= 20")


def test_params_validated_alone_get_the_same_paths():
    """Parameters typed by a person (CLI, REST) are validated without the JSON section around them."""
    wrong = {**VALID, "momentum_period": 25, "stop_loss": "10%"}
    with pytest.raises(ValidationError) as caught:
        MomentumStrategyParams.model_validate(wrong)
    assert (
        StructuredErrorFeedback().format_errors(details_from_validation_error(caught.value)) == SPEC_EXAMPLE
    )
    with pytest.raises(ValidationError) as caught:
        validate_params(wrong)  # the union, strategy_type left out: momentum, tag in pydantic's path
    assert (
        StructuredErrorFeedback().format_errors(details_from_validation_error(caught.value, wrong))
        == SPEC_EXAMPLE
    )
    with pytest.raises(ValidationError) as caught:
        MomentumStrategyParams.model_validate({**VALID, "momentum_period": 30, "ma_periods": 20})
    (error,) = details_from_validation_error(caught.value)
    assert (error.field_path, error.error_type) == ("params", "inconsistent_values")


def test_extra_field_is_unknown_and_lists_the_valid_names(generator: TemplateCodeGenerator):
    (error,) = generator.generate(answer(leverage=2)).errors
    assert (error.field_path, error.error_type, error.given_value) == ("params.leverage", "unknown_field", 2)
    assert error.allowed_values == ["strategy_type", *PARAM_FIELDS]
    assert "Remove" in error.suggestion


@pytest.mark.parametrize(("raw", "path"), [("[1, 2]", "$"), ('{"params": [20, 60]}', "params")])
def test_wrong_container_type_is_a_type_error(raw: str, path: str):
    errors = errors_of(raw)
    error = next(e for e in errors if e.field_path == path)
    assert (error.error_type, error.expected_type) == ("type_error", "object")


def test_prose_without_the_sections_is_a_format_error_that_shows_the_layout(generator: TemplateCodeGenerator):
    raw = "I would pick a 20 day momentum and a 60 day moving average. " * 10
    (error,) = generator.generate(raw).errors
    assert (error.field_path, error.error_type) == ("$", "format_error")
    assert error.given_value == raw[:200]
    assert error.suggestion.startswith("Answer in exactly this layout")
    text = StructuredErrorFeedback().format_errors([error])
    assert (
        '   - Problem: no "REASONING:" and no "JSON:" heading\n'
        "   - Suggestion: Answer in exactly this layout, each heading on its own line:\n"
        "     REASONING:\n"
        "     <50-500 characters: why this family and these values>\n"
        "\n"
        "     JSON:\n"
        '     {"params": {"strategy_type": "<momentum, mean_reversion or volatility>", '
        "<the fields of that family>}}\n"
    ) in text


def test_a_broken_json_section_is_a_json_error_showing_the_section(generator: TemplateCodeGenerator):
    (error,) = generator.generate(f"REASONING:\n{REASONING}\n\nJSON:\n{{params: 20}}").errors
    assert (error.field_path, error.error_type, error.given_value) == ("$", "json_error", "{params: 20}")
    assert error.message.startswith("the JSON section is not valid JSON: Expecting property name")
    assert error.suggestion.startswith('After the "JSON:" heading write one JSON object')


def test_spec_two_error_example_exact_format(generator: TemplateCodeGenerator):
    result = generator.generate(answer(momentum_period=25, stop_loss="10%"))
    assert result.get_feedback_prompt() == SPEC_EXAMPLE
    assert StructuredErrorFeedback().format_errors(result.errors) == SPEC_EXAMPLE


def test_multiple_errors_are_numbered_in_order(generator: TemplateCodeGenerator):
    result = generator.generate(
        answer(reasoning="Too short.", momentum_period=25, resample="weekly", stop_loss=10, n_stocks=...)
    )
    assert [(e.field_path, e.error_type) for e in result.errors] == [
        ("reasoning", "too_short"),
        ("params.momentum_period", "invalid_value"),
        ("params.n_stocks", "missing_field"),
        ("params.stop_loss", "invalid_value"),
        ("params.resample", "invalid_value"),
    ]
    feedback = result.get_feedback_prompt()
    assert feedback == (
        "## VALIDATION ERRORS (Please Fix)\n\n"
        "1. **reasoning**: Too short\n"
        '   - Given: "Too short."\n'
        "   - Suggestion: Explain your choices in at least 50 characters (at most 500); you wrote 10\n\n"
        "2. **params.momentum_period**: Invalid value\n"
        "   - Given: 25\n"
        "   - Allowed: [5, 10, 20, 30]\n"
        "   - Suggestion: Use 20 (closest valid value)\n\n"
        "3. **params.n_stocks**: Missing field\n"
        "   - Allowed: [5, 10, 15, 20]\n"
        '   - Suggestion: Add "n_stocks": 10 (or another allowed value)\n\n'
        "4. **params.stop_loss**: Invalid value\n"
        "   - Given: 10\n"
        "   - Allowed: [0.08, 0.10, 0.12, 0.15]\n"
        "   - Suggestion: Use 0.10 (closest valid value)\n\n"
        "5. **params.resample**: Invalid value\n"
        '   - Given: "weekly"\n'
        '   - Allowed: ["W", "M"]\n'
        '   - Suggestion: Use "W" (closest valid value)\n\n'
        "Please output corrected JSON with valid values."
    )


def test_integrate_with_prompt_keeps_the_original_prompt_first(generator: TemplateCodeGenerator):
    prompt = "You choose strategy parameters.\nAnswer with REASONING: then JSON:."
    errors = generator.generate(answer(momentum_period=25, stop_loss="10%")).errors
    combined = StructuredErrorFeedback().integrate_with_prompt(prompt, errors)
    assert combined == prompt + "\n\n" + SPEC_EXAMPLE
    assert StructuredErrorFeedback().integrate_with_prompt(prompt, []) == prompt


def test_json_error_detail_shows_the_start_of_the_answer():
    detail = json_error_detail("no JSON object found", "line one\nline two")
    text = StructuredErrorFeedback().format_errors([detail])
    assert (
        '1. **$**: No valid JSON\n   - Given: "line one\\nline two"\n   - Problem: no JSON object found\n'
        in text
    )


def test_feedback_prompt_is_empty_on_success(generator: TemplateCodeGenerator):
    result = generator.generate(answer())
    assert result.success is True and result.errors == []
    assert result.get_feedback_prompt() == ""
    assert GenerationResult(success=True).get_feedback_prompt() == ""
    assert StructuredErrorFeedback().format_errors([]) == ""


@pytest.mark.parametrize(
    ("changes", "field", "suggested"),
    [
        ({"momentum_period": 30, "ma_periods": 40}, "params.ma_periods", 60),  # 20 would break <= 30
        ({"momentum_period": 40, "ma_periods": 20}, "params.momentum_period", 20),  # 30 would exceed 20
        ({"momentum_period": 25, "ma_periods": 60}, "params.momentum_period", 20),  # nothing to respect
    ],
)
def test_a_suggested_period_respects_the_other_period(changes: dict, field: str, suggested: int) -> None:
    """Seen on the embedded model: "closest" ma_periods 20 for 40 next to momentum 30 cost a retry."""
    result = TemplateCodeGenerator(FamilyTemplates()).generate(answer(**changes))
    [error] = [e for e in result.errors if e.field_path == field]
    assert error.suggestion == f"Use {suggested} (closest valid value)"
