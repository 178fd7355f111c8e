"""Structured feedback over the union of families: paths without pydantic's tag, the chosen family's
allowed values, a field of another family named as such, unknown or missing strategy_type, and each
family's cross-parameter rules with a concrete fix."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from pydantic import ValidationError

from stockdesk.strategy_lab.application.code_generator import TemplateCodeGenerator
from stockdesk.strategy_lab.application.family_rules import broken_rule, consistent_candidates
from stockdesk.strategy_lab.application.feedback import StructuredErrorFeedback, show
from stockdesk.strategy_lab.application.service import parse_params
from stockdesk.strategy_lab.domain.errors import InvalidStrategyParamsError, ValidationErrorDetail
from stockdesk.strategy_lab.domain.params import FAMILIES, FAMILY_ALLOWED, validate_params
from stockdesk.strategy_lab.infrastructure.templates.family_templates import FamilyTemplates
from tests.strategy_lab.support import FAMILY_PARAMS, MEAN_REVERSION, PARAMS, REASONING, VOLATILITY, sections


def errors(params: dict[str, Any]) -> list[ValidationErrorDetail]:
    result = TemplateCodeGenerator(FamilyTemplates()).generate(sections(params))
    assert result.success is False
    return result.errors


def only(params: dict[str, Any]) -> ValidationErrorDetail:
    (error,) = errors(params)
    return error


def test_paths_leave_out_the_union_tag_and_values_are_the_chosen_familys() -> None:
    error = only({**MEAN_REVERSION, "lookback": 25})
    assert (error.field_path, error.error_type, error.given_value) == ("params.lookback", "invalid_value", 25)
    assert error.allowed_values == [5, 10, 20, 30]
    assert error.suggestion == "Use 20 (closest valid value)"
    # n_stocks exists in every family; stop_loss's values differ per family
    error = only({**MEAN_REVERSION, "stop_loss": 0.06})
    assert (error.field_path, error.allowed_values) == ("params.stop_loss", [0.05, 0.08, 0.10, 0.15])
    assert error.suggestion == "Use 0.05 (closest valid value)"  # .06 is .01 from .05, .02 from .08


def test_a_value_of_another_family_is_named_as_such() -> None:
    error = only({**MEAN_REVERSION, "stop_loss": 0.12})
    assert error.suggestion == (
        "Use 0.10 (closest valid value for mean_reversion; 0.12 is a momentum or volatility value)"
    )
    error = only({**PARAMS, "resample": "D"})
    assert error.suggestion == 'Use "W" (closest valid value for momentum; "D" is a mean_reversion value)'


def test_a_field_of_another_family_is_named_with_both_ways_out() -> None:
    error = only({**MEAN_REVERSION, "momentum_period": 20})
    assert (error.field_path, error.error_type, error.given_value) == (
        "params.momentum_period",
        "wrong_family_field",
        20,
    )
    assert error.allowed_values == ["strategy_type", *FAMILY_ALLOWED["mean_reversion"]]
    assert error.suggestion == (
        "momentum_period belongs to the momentum family; strategy_type is mean_reversion: "
        "remove it, or switch strategy_type to momentum"
    )
    error = only({**PARAMS, "trend_ma": 60})
    assert error.suggestion == (
        "trend_ma belongs to the mean_reversion and volatility families; strategy_type is momentum: "
        "remove it, or switch strategy_type to mean_reversion or volatility"
    )
    text = StructuredErrorFeedback().format_errors([error])
    assert text.startswith(
        "## VALIDATION ERRORS (Please Fix)\n\n1. **params.trend_ma**: Field of another family\n"
    )


def test_an_unknown_field_lists_the_chosen_familys_names() -> None:
    error = only({**VOLATILITY, "leverage": 2})
    assert (error.field_path, error.error_type) == ("params.leverage", "unknown_field")
    assert error.allowed_values == ["strategy_type", *FAMILY_ALLOWED["volatility"]]
    assert error.suggestion == 'Remove "leverage"; the valid field names of volatility are listed above'


def test_another_familys_whole_set_under_the_wrong_strategy_type() -> None:
    """The mean-reversion set labelled volatility: its own fields are foreign, volatility's are missing."""
    found = errors({**MEAN_REVERSION, "strategy_type": "volatility", "resample": "W"})
    assert {(e.field_path, e.error_type) for e in found} == {
        ("params.vol_period", "missing_field"),
        ("params.max_vol", "missing_field"),
        ("params.target_vol", "missing_field"),
        ("params.lookback", "wrong_family_field"),
        ("params.entry_z", "wrong_family_field"),
        ("params.exit_z", "wrong_family_field"),
    }  # trend_ma, n_stocks, resample "W", offset 0 are volatility's too; stop_loss .08 is allowed there
    assert all(".volatility." not in e.field_path and ".mean_reversion." not in e.field_path for e in found)
    missing = next(e for e in found if e.field_path == "params.max_vol")
    assert missing.allowed_values == [0.25, 0.35, 0.5, 0.8]


@pytest.mark.parametrize(
    ("given", "fields", "suggested"),
    [
        ("mean-reversion", MEAN_REVERSION, "mean_reversion"),  # spelling
        ("Momentum", PARAMS, "momentum"),  # case
        ("vol", VOLATILITY, "volatility"),  # prefix
        ("low_risk", VOLATILITY, "volatility"),  # no spelling match: the family its fields belong to
        (None, MEAN_REVERSION, "mean_reversion"),
    ],
)
def test_an_unknown_family_suggests_the_closest(given: Any, fields: dict[str, Any], suggested: str) -> None:
    error = only({**fields, "strategy_type": given})
    assert (error.field_path, error.error_type, error.given_value) == (
        "params.strategy_type",
        "invalid_value",
        given,
    )
    assert error.allowed_values == list(FAMILIES)
    assert error.suggestion == f'Use "{suggested}" (closest valid value)'


def test_a_missing_strategy_type_names_the_family_its_fields_belong_to() -> None:
    without = {name: value for name, value in MEAN_REVERSION.items() if name != "strategy_type"}
    error = only(without)
    assert (error.field_path, error.error_type) == ("params.strategy_type", "missing_field")
    assert error.allowed_values == ["momentum", "mean_reversion", "volatility"]
    assert (
        error.suggestion
        == 'Add "strategy_type": "mean_reversion" (the other fields you gave are mean_reversion parameters)'
    )
    error = only({"n_stocks": 10})  # shared by every family: no guess
    assert error.suggestion == (
        'Add "strategy_type": one of "momentum", "mean_reversion" or "volatility", then that family\'s fields'
    )


@pytest.mark.parametrize(
    ("params", "given", "suggestion"),
    [
        (
            {**PARAMS, "momentum_period": 30, "ma_periods": 20},
            {"momentum_period": 30, "ma_periods": 20},
            "Use ma_periods >= 30, e.g. 60, or momentum_period <= 20, e.g. 20 "
            "(momentum_period must not exceed ma_periods)",
        ),
        (
            {**MEAN_REVERSION, "entry_z": 1.0, "exit_z": 1.0},
            {"exit_z": 1.0, "entry_z": 1.0},
            "Use entry_z > 1.00, e.g. 1.50, or exit_z < 1.00, e.g. 0.50 (exit_z must be below entry_z)",
        ),
        (
            {**MEAN_REVERSION, "resample": "D", "resample_offset": 3},
            {"resample": "D", "resample_offset": 3},
            'Use resample_offset 0 with resample "D", or resample "W" to keep resample_offset 3 '
            '(resample_offset must be 0 with resample "D")',
        ),
        (
            {**VOLATILITY, "target_vol": 0.3, "max_vol": 0.25},
            {"target_vol": 0.3, "max_vol": 0.25},
            "Use max_vol > 0.30, e.g. 0.35, or target_vol < 0.25, e.g. 0.20 "
            "(target_vol must be below max_vol)",
        ),
        (
            {**VOLATILITY, "vol_period": 120, "trend_ma": 60},
            {"vol_period": 120, "trend_ma": 60},
            "Use trend_ma >= 120, e.g. 120 (or 0 to switch it off), or vol_period <= 60, e.g. 60 "
            "(trend_ma must be 0 or >= vol_period)",
        ),
    ],
    ids=[
        "momentum",
        "mean-reversion-z",
        "mean-reversion-daily-offset",
        "volatility-target",
        "volatility-trend",
    ],
)
def test_each_familys_rule_comes_with_a_concrete_fix(
    params: dict[str, Any], given: dict[str, Any], suggestion: str
) -> None:
    error = only(params)
    assert (error.field_path, error.error_type, error.given_value) == ("params", "inconsistent_values", given)
    assert error.suggestion == suggestion
    # the first suggested change makes the set valid
    first = {
        "momentum_period": {"ma_periods": 60},
        "exit_z": {"entry_z": 1.5},
        "resample": {"resample_offset": 0},
        "target_vol": {"max_vol": 0.35},
        "vol_period": {"trend_ma": 120},
    }[next(iter(given))]
    validate_params({**params, **first})


@pytest.mark.parametrize(
    ("params", "field", "suggested"),
    [
        # 1.0 is closest to 1.2 but would equal exit_z 1.0
        ({**MEAN_REVERSION, "entry_z": 1.2, "exit_z": 1.0}, "params.entry_z", 1.5),
        ({**MEAN_REVERSION, "entry_z": 2.0, "exit_z": 2.2}, "params.exit_z", 1.0),
        # .25 is closest to .28 but not above target_vol .3
        ({**VOLATILITY, "max_vol": 0.28, "target_vol": 0.3}, "params.max_vol", 0.35),
        # 60 and 120 are both 30 from 90 (ties go low), but 60 < vol_period 120
        ({**VOLATILITY, "trend_ma": 90, "vol_period": 120}, "params.trend_ma", 120),
        # "D" would need resample_offset 0
        ({**MEAN_REVERSION, "resample": "M", "resample_offset": 2}, "params.resample", "W"),
        ({**MEAN_REVERSION, "resample": "D", "resample_offset": 7}, "params.resample_offset", 0),
        # exit_z 0.0 leaves every entry_z possible: plain closest
        ({**MEAN_REVERSION, "entry_z": 1.2, "exit_z": 0.0}, "params.entry_z", 1.0),
    ],
)
def test_a_suggested_value_respects_the_familys_rules(
    params: dict[str, Any], field: str, suggested: Any
) -> None:
    [error] = [e for e in errors(params) if e.field_path == field]
    assert error.suggestion.startswith(f"Use {show(suggested)} (closest valid value")


@pytest.mark.parametrize("family", FAMILIES)
def test_the_feedback_rules_agree_with_the_validators_on_every_combination(family: str) -> None:
    allowed = FAMILY_ALLOWED[family]
    for combination in itertools.product(*allowed.values()):
        values = {"strategy_type": family, **dict(zip(allowed, combination, strict=True))}
        try:
            validate_params(values)
        except ValidationError:
            assert broken_rule(family, values) is not None, values
        else:
            assert broken_rule(family, values) is None, values


def test_consistent_candidates() -> None:
    assert consistent_candidates("exit_z", {"entry_z": 1.0}, "mean_reversion") == [0.0, 0.5]
    assert consistent_candidates("trend_ma", {"vol_period": 120}, "volatility") == [0, 120, 250]
    assert consistent_candidates("resample_offset", {"resample": "D"}, "mean_reversion") == [0]
    assert consistent_candidates("resample_offset", {"resample": "W"}, "mean_reversion") == [0, 1, 2, 3, 4]
    assert consistent_candidates("exit_z", {"entry_z": 1.2}, "mean_reversion") is None  # the other is invalid
    assert consistent_candidates("n_stocks", {}, "momentum") is None


def test_parse_params_takes_any_family_with_the_same_feedback() -> None:
    for values in FAMILY_PARAMS.values():
        assert parse_params(json.dumps(values)) == validate_params(values)
        assert parse_params({"params": values}) == validate_params(values)  # an answer's JSON section
    typed = {name: value for name, value in PARAMS.items() if name != "strategy_type"}
    assert parse_params(typed).strategy_type == "momentum"  # typed without a family: momentum
    with pytest.raises(InvalidStrategyParamsError) as caught:
        parse_params({**MEAN_REVERSION, "lookback": 25, "momentum_period": 20})
    paths = [(e["field_path"], e["error_type"]) for e in caught.value.details["errors"]]
    assert paths == [("params.lookback", "invalid_value"), ("params.momentum_period", "wrong_family_field")]
    assert "lookback: Use 20 (closest valid value)" in caught.value.message
    with pytest.raises(InvalidStrategyParamsError) as caught:
        parse_params({**typed, "lookback": 20})  # momentum by default, with a mean-reversion field
    assert "lookback belongs to the mean_reversion family; strategy_type is momentum" in caught.value.message
    with pytest.raises(InvalidStrategyParamsError) as caught:
        parse_params({**VOLATILITY, "strategy_type": "volatilty"})
    assert 'strategy_type: Use "volatility" (closest valid value)' in caught.value.message


def test_the_reasoning_in_the_answer_is_kept() -> None:
    result = TemplateCodeGenerator(FamilyTemplates()).generate(sections(VOLATILITY, REASONING))
    assert result.success and result.reasoning == REASONING and result.params == validate_params(VOLATILITY)
    assert result.code is not None and 'STRATEGY_TYPE = "volatility"' in result.code


def test_a_broken_rule_is_reported_with_the_field_errors_in_the_same_round() -> None:
    """pydantic checks a model's rules only once every field is valid; the feedback does not wait:
    exit_z 1.0 is not below entry_z 1.0, said beside the invalid lookback so one retry fixes both."""
    found = errors({**MEAN_REVERSION, "lookback": 12, "entry_z": 1.0, "exit_z": 1.0})
    assert [(e.field_path, e.error_type) for e in found] == [
        ("params.lookback", "invalid_value"),
        ("params", "inconsistent_values"),
    ]
    assert found[1].given_value == {"exit_z": 1.0, "entry_z": 1.0}
    assert "exit_z must be below entry_z" in found[1].suggestion
