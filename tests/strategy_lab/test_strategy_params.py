"""C1/C2 of the strategy JSON-params spec and its multi-strategy future improvement: each family's
schema accepts exactly its allowed sets, joined in a union discriminated by strategy_type."""

from __future__ import annotations

import itertools
import math

import pytest
from pydantic import ValidationError

from stockdesk.strategy_lab.domain.params import (
    ALLOWED_VALUES,
    FAMILY_ALLOWED,
    PARAM_FIELDS,
    MeanReversionParams,
    MomentumStrategyParams,
    StrategyParamJSON,
    StrategyParamRequest,
    VolatilityParams,
    validate_params,
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
            assert params.model_dump() == {"strategy_type": "momentum", **values}
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


MOMENTUM = {"strategy_type": "momentum", **VALID}


def test_reasoning_bounds_are_50_and_500():
    assert StrategyParamRequest(reasoning="x" * 50, params=MOMENTUM).reasoning == "x" * 50
    assert len(StrategyParamRequest(reasoning="x" * 500, params=MOMENTUM).reasoning) == 500
    for length, kind in ((49, "string_too_short"), (501, "string_too_long")):
        with pytest.raises(ValidationError) as caught:
            StrategyParamRequest(reasoning="x" * length, params=MOMENTUM)
        assert [(e["type"], e["loc"]) for e in caught.value.errors()] == [(kind, ("reasoning",))]


def test_request_needs_reasoning_and_params():
    with pytest.raises(ValidationError) as caught:
        StrategyParamRequest.model_validate({})
    assert sorted(e["loc"] for e in caught.value.errors()) == [("params",), ("reasoning",)]
    request = StrategyParamRequest.model_validate({"reasoning": REASONING, "params": MOMENTUM})
    assert request.params == MomentumStrategyParams(**VALID)


def test_json_schema_export():
    """The answer's params are a union of the three families, told apart by strategy_type."""
    schema = StrategyParamRequest.model_json_schema()
    assert sorted(schema["required"]) == ["params", "reasoning"]
    reasoning = schema["properties"]["reasoning"]
    assert (reasoning["type"], reasoning["minLength"], reasoning["maxLength"]) == ("string", 50, 500)
    union = schema["properties"]["params"]
    assert union["discriminator"]["propertyName"] == "strategy_type"
    assert sorted(union["discriminator"]["mapping"]) == ["mean_reversion", "momentum", "volatility"]
    assert len(union["oneOf"]) == 3
    params = schema["$defs"][union["discriminator"]["mapping"]["momentum"].rsplit("/", 1)[-1]]
    assert params["additionalProperties"] is False
    assert sorted(params["required"]) == sorted(SPEC_VALUES)  # strategy_type has its default
    for name, values in SPEC_VALUES.items():
        assert params["properties"][name]["enum"] == values, name
        assert params["properties"][name]["description"]


# The other two families' value sets, written out.
MEAN_REVERSION_VALUES = {
    "lookback": [5, 10, 20, 30],
    "entry_z": [1.0, 1.5, 2.0, 2.5],
    "exit_z": [0.0, 0.5, 1.0],
    "trend_ma": [0, 60, 120, 250],
    "n_stocks": [5, 10, 15, 20],
    "stop_loss": [0.05, 0.08, 0.10, 0.15],
    "resample": ["D", "W"],
    "resample_offset": [0, 1, 2, 3, 4],
}
VOLATILITY_VALUES = {
    "vol_period": [20, 60, 120],
    "max_vol": [0.25, 0.35, 0.5, 0.8],
    "target_vol": [0.1, 0.15, 0.2, 0.3],
    "trend_ma": [0, 60, 120, 250],
    "n_stocks": [5, 10, 15, 20],
    "stop_loss": [0.08, 0.10, 0.12, 0.15],
    "resample": ["W", "M"],
    "resample_offset": [0, 1, 2, 3, 4],
}


def test_family_value_sets():
    assert FAMILY_ALLOWED == {
        "momentum": SPEC_VALUES,
        "mean_reversion": MEAN_REVERSION_VALUES,
        "volatility": VOLATILITY_VALUES,
    }


def _count(family: str, broken: object) -> tuple[int, int]:
    """(accepted, rejected) over every combination; each rejection is a value_error the rule predicts."""
    accepted = rejected = 0
    allowed = FAMILY_ALLOWED[family]
    for combination in itertools.product(*allowed.values()):
        values = {"strategy_type": family, **dict(zip(allowed, combination, strict=True))}
        try:
            params = validate_params(values)
        except ValidationError as exc:
            assert broken(values), values  # type: ignore[operator]
            assert [e["type"] for e in exc.errors()] == ["value_error"]
            rejected += 1
        else:
            assert not broken(values), values  # type: ignore[operator]
            assert params.model_dump() == values
            accepted += 1
    return accepted, rejected


def test_every_mean_reversion_combination_validates_except_the_two_rules():
    accepted, rejected = _count(
        "mean_reversion",
        lambda v: v["exit_z"] >= v["entry_z"] or (v["resample"] == "D" and v["resample_offset"] != 0),
    )
    assert accepted + rejected == 4 * 4 * 3 * 4 * 4 * 4 * 2 * 5 == 30720
    # 11 of the 12 (entry_z, exit_z) pairs (only 1.0 / 1.0 fails), 6 of the 10 schedules ("D" with 0,
    # "W" with 0..4), times lookback, trend_ma, n_stocks, stop_loss: 4 * 4 * 4 * 4 = 256
    assert accepted == 11 * 6 * 256 == 16896


def test_every_volatility_combination_validates_except_the_two_rules():
    accepted, rejected = _count(
        "volatility",
        lambda v: v["target_vol"] >= v["max_vol"] or (v["trend_ma"] != 0 and v["trend_ma"] < v["vol_period"]),
    )
    assert accepted + rejected == 3 * 4 * 4 * 4 * 4 * 4 * 2 * 5 == 30720
    # 15 of the 16 (target_vol, max_vol) pairs (only 0.3 / 0.25 fails); 11 of the 12 (trend_ma,
    # vol_period) pairs (only 60 / 120 fails); n_stocks, stop_loss, resample, offset: 4 * 4 * 2 * 5 = 160
    assert accepted == 15 * 11 * 160 == 26400


def test_the_union_picks_the_model_by_strategy_type():
    base = {"n_stocks": 10, "stop_loss": 0.08, "resample": "W", "resample_offset": 0}
    mean_reversion = {"lookback": 10, "entry_z": 2.0, "exit_z": 0.5, "trend_ma": 0}
    assert isinstance(
        validate_params({"strategy_type": "mean_reversion", **base, **mean_reversion}), MeanReversionParams
    )
    volatility = {"vol_period": 20, "max_vol": 0.35, "target_vol": 0.15, "trend_ma": 60}
    assert isinstance(
        validate_params({"strategy_type": "volatility", **base, **volatility}), VolatilityParams
    )
    # without strategy_type a typed or stored set is a momentum set
    assert validate_params(VALID) == MomentumStrategyParams(**VALID)
    with pytest.raises(ValidationError) as caught:
        validate_params({"strategy_type": "pairs", **VALID})
    assert [e["type"] for e in caught.value.errors()] == ["union_tag_invalid"]
    # a model's answer must say which family: no default inside the JSON section
    with pytest.raises(ValidationError) as caught:
        StrategyParamJSON.model_validate({"params": VALID})
    assert [(e["type"], e["loc"]) for e in caught.value.errors()] == [("union_tag_not_found", ("params",))]


def test_the_json_section_has_no_reasoning_field():
    with pytest.raises(ValidationError) as caught:
        StrategyParamJSON.model_validate(
            {"reasoning": REASONING, "params": {"strategy_type": "momentum", **VALID}}
        )
    assert [(e["type"], e["loc"]) for e in caught.value.errors()] == [("extra_forbidden", ("reasoning",))]


def test_the_same_values_in_another_family_are_another_set():
    shared = {"n_stocks": 10, "stop_loss": 0.08, "resample": "W", "resample_offset": 0, "trend_ma": 120}
    reverting = validate_params(
        {"strategy_type": "mean_reversion", "lookback": 20, "entry_z": 2.0, "exit_z": 0.5, **shared}
    )
    calm = validate_params(
        {"strategy_type": "volatility", "vol_period": 20, "max_vol": 0.35, "target_vol": 0.15, **shared}
    )
    assert reverting.key()[0] == "mean_reversion" and calm.key()[0] == "volatility"
    assert reverting.key() != calm.key()
    assert validate_params(reverting.model_dump()).key() == reverting.key()
