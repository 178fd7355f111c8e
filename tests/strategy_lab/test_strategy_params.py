"""C1/C2 of the strategy JSON-params spec: the parameter schema accepts exactly the allowed sets."""

from __future__ import annotations

import itertools
import math

import pytest
from pydantic import ValidationError

from stockdesk.strategy_lab.domain.params import (
    ALLOWED_VALUES,
    PARAM_FIELDS,
    MomentumStrategyParams,
    StrategyParamRequest,
)
from tests.strategy_lab.support import REASONING_SPEC as REASONING
from tests.strategy_lab.support import VALID

# The spec's value sets, written out: the code's ALLOWED_VALUES is derived from the schema itself.
SPEC_VALUES = {
    "momentum_period": [5, 10, 20, 30],
    "ma_periods": [20, 60, 90, 120],
    "catalyst_type": ["revenue", "earnings"],
    "catalyst_lookback": [2, 3, 4, 6],
    "n_stocks": [5, 10, 15, 20],
    "stop_loss": [0.08, 0.10, 0.12, 0.15],
    "resample": ["W", "M"],
    "resample_offset": [0, 1, 2, 3, 4],
}


def test_allowed_values_are_the_spec_sets():
    assert ALLOWED_VALUES == SPEC_VALUES


def test_every_combination_validates_except_momentum_longer_than_ma():
    accepted = rejected = 0
    for combination in itertools.product(*(ALLOWED_VALUES[name] for name in PARAM_FIELDS)):
        values = dict(zip(PARAM_FIELDS, combination, strict=True))
        try:
            params = MomentumStrategyParams(**values)
        except ValidationError as exc:
            assert values["momentum_period"] > values["ma_periods"], values
            assert [e["type"] for e in exc.errors()] == ["value_error"]
            rejected += 1
        else:
            assert params.model_dump() == values
            accepted += 1
    total = math.prod(len(values) for values in ALLOWED_VALUES.values())
    assert total == 4 * 4 * 2 * 4 * 4 * 4 * 2 * 5 == 20480
    # momentum_period 30 with ma_periods 20 is the only inconsistent pair: 1 of the 16 pairs
    assert rejected == 2 * 4 * 4 * 4 * 2 * 5 == 1280
    assert accepted == total - 1280 == 19200


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("momentum_period", 25),
        ("momentum_period", "20"),
        ("momentum_period", None),
        ("ma_periods", 50),
        ("catalyst_type", "Revenue"),
        ("catalyst_type", "eps"),
        ("catalyst_lookback", 5),
        ("n_stocks", 12),
        ("n_stocks", 10.5),
        ("stop_loss", 0.1000001),
        ("stop_loss", "10%"),
        ("stop_loss", 10),
        ("resample", "D"),
        ("resample", "w"),
        ("resample_offset", 5),
        ("resample_offset", -1),
    ],
)
def test_invalid_value_rejected(field: str, bad: object):
    with pytest.raises(ValidationError) as caught:
        MomentumStrategyParams(**{**VALID, field: bad})
    assert [(e["type"], e["loc"]) for e in caught.value.errors()] == [("literal_error", (field,))]


def test_extra_field_rejected():
    with pytest.raises(ValidationError) as caught:
        MomentumStrategyParams(**VALID, leverage=2)
    assert [(e["type"], e["loc"]) for e in caught.value.errors()] == [("extra_forbidden", ("leverage",))]


def test_reasoning_bounds_are_50_and_500():
    assert StrategyParamRequest(reasoning="x" * 50, params=VALID).reasoning == "x" * 50
    assert len(StrategyParamRequest(reasoning="x" * 500, params=VALID).reasoning) == 500
    for length, kind in ((49, "string_too_short"), (501, "string_too_long")):
        with pytest.raises(ValidationError) as caught:
            StrategyParamRequest(reasoning="x" * length, params=VALID)
        assert [(e["type"], e["loc"]) for e in caught.value.errors()] == [(kind, ("reasoning",))]


def test_request_needs_reasoning_and_params():
    with pytest.raises(ValidationError) as caught:
        StrategyParamRequest.model_validate({})
    assert sorted(e["loc"] for e in caught.value.errors()) == [("params",), ("reasoning",)]
    request = StrategyParamRequest.model_validate({"reasoning": REASONING, "params": VALID})
    assert request.params == MomentumStrategyParams(**VALID)


def test_json_schema_export():
    schema = StrategyParamRequest.model_json_schema()
    assert sorted(schema["required"]) == ["params", "reasoning"]
    reasoning = schema["properties"]["reasoning"]
    assert (reasoning["type"], reasoning["minLength"], reasoning["maxLength"]) == ("string", 50, 500)
    params_ref = schema["properties"]["params"]["$ref"].rsplit("/", 1)[-1]
    params = schema["$defs"][params_ref]
    assert params["additionalProperties"] is False
    assert sorted(params["required"]) == sorted(SPEC_VALUES)
    for name, values in SPEC_VALUES.items():
        assert params["properties"][name]["enum"] == values, name
        assert params["properties"][name]["description"]
