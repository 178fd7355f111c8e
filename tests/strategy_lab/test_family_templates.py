"""The mean-reversion and volatility templates on tiny price frames worked out by hand, run in the real
sandbox; no look-ahead; every valid set of both families renders code the allowlist accepts."""

from __future__ import annotations

import ast
import itertools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

from stockdesk.strategy_lab.application.code_check import check_strategy_code
from stockdesk.strategy_lab.domain.params import FAMILY_ALLOWED, validate_params
from stockdesk.strategy_lab.domain.ports import IStrategySession
from stockdesk.strategy_lab.infrastructure.sandbox.process_sandbox import ProcessSandbox
from stockdesk.strategy_lab.infrastructure.templates.family_templates import (
    FamilyTemplates,
    MeanReversionTemplate,
    VolatilityTemplate,
)
from stockdesk.strategy_lab.infrastructure.templates.momentum_template import MomentumTemplate
from tests.strategy_lab.support import FAMILY_PARAMS, MEAN_REVERSION, VOLATILITY

NO_FUNDAMENTALS = pd.DataFrame(columns=["symbol", "end_date", "ann_date", "revenue", "profit"])
MR = {**MEAN_REVERSION, "lookback": 5, "entry_z": 1.5, "exit_z": 0.5, "trend_ma": 0, "n_stocks": 5}
VOL = {**VOLATILITY, "vol_period": 20, "max_vol": 0.5, "target_vol": 0.2, "trend_ma": 0, "n_stocks": 5}


@pytest.fixture(scope="module")
def sandbox() -> Iterator[IStrategySession]:
    with ProcessSandbox(FamilyTemplates()).session() as session:
        yield session


def weights(sandbox: IStrategySession, params: dict[str, Any], close: pd.DataFrame) -> pd.DataFrame:
    return sandbox.weights(validate_params(params), close, NO_FUNDAMENTALS)


def frame(columns: dict[str, list[float]], start: str = "2024-01-01") -> pd.DataFrame:
    """Business days from Monday Jan 1, 2024 (Jan 5 is a Friday, Jan 8 the next Monday)."""
    length = len(next(iter(columns.values())))
    return pd.DataFrame(columns, index=pd.bdate_range(start, periods=length), dtype=float)


def held(result: pd.DataFrame, day: str) -> dict[str, float]:
    row = result.loc[pd.Timestamp(day)]
    return {symbol: round(weight, 9) for symbol, weight in row.items() if weight > 0}


# --- mean reversion ----------------------------------------------------------------------------
# Lookback 5. A window of four equal closes and one lower close x has mean (4c + x) / 5, the four
# deviate by (c - x) / 5 and x by -4 (c - x) / 5: var = (4 (c-x)^2/25 + 16 (c-x)^2/25) / 4 = (c-x)^2 / 5,
# so z = -(4/5)(c - x) / ((c - x)/sqrt 5) = -4/sqrt 5 = -1.7889 whatever the size of the drop.
# A: 10 10 10 10 9 | 9 10 ...
#   Jan 5  [10,10,10,10,9]: z = -1.7889 <= -1.5: enters
#   Jan 8  [10,10,10,9,9]: mean 9.6, squares .16*3 + .36*2 = 1.2, var .3, std .5477,
#          z = -.6/.5477 = -1.0954: holds
#   Jan 9  [10,10,9,9,10]: mean 9.6, same std .5477, z = +.4/.5477 = +0.7303 >= -0.5: exits
# D: 10 10 10 10 9 | 9 9 9 ...
#   Jan 5, Jan 8 as A; Jan 9 [10,10,9,9,9]: mean 9.4, squares .36*2 + .16*3 = 1.2, std .5477,
#   z = -.4/.5477 = -0.7303: between -1.5 and -0.5, holds (hysteresis)
#   Jan 10 [10,9,9,9,9]: mean 9.2, squares .64 + .04*4 = .8, var .2, std .4472, z = -.2/.4472 = -0.4472: exits
# B: flat: std 0, z unknown, never enters.
# C: 10 10 10 10 10 11 10.2 10 9 9: Jan 11 [10,11,10.2,10,9]: mean 10.04, squares .0016 + .9216 + .0256
#   + .0016 + 1.0816 = 2.032, var .508, std .71274, z = -1.04/.71274 = -1.4592 > -1.5: never enters.
MR_CLOSE = frame(
    {
        "A": [10, 10, 10, 10, 9, 9, 10, 10, 10, 10],
        "B": [10] * 10,
        "C": [10, 10, 10, 10, 10, 11, 10.2, 10, 9, 9],
        "D": [10, 10, 10, 10, 9, 9, 9, 9, 9, 9],
    }
)


def test_mean_reversion_daily_enters_holds_and_exits_as_worked_out(sandbox: IStrategySession) -> None:
    result = weights(sandbox, MR, MR_CLOSE)
    assert list(result.index) == list(MR_CLOSE.index)  # resample "D": every trading day decides
    assert list(result.columns) == ["A", "B", "C", "D"]
    expected = {
        "2024-01-04": {},  # four closes: no z yet
        "2024-01-05": {"A": 0.5, "D": 0.5},  # both at z -1.7889
        "2024-01-08": {"A": 0.5, "D": 0.5},  # both at z -1.0954: held through the band
        "2024-01-09": {"D": 1.0},  # A at +0.7303 exits, D at -0.7303 stays
        "2024-01-10": {},  # D at -0.4472 exits
        "2024-01-11": {},  # C at -1.4592 does not reach -1.5
    }
    assert {day: held(result, day) for day in expected} == expected


def test_mean_reversion_nothing_enters_beyond_the_deepest_possible_z(sandbox: IStrategySession) -> None:
    """entry_z 2.0: the deepest z a 5-day window can reach is -4/sqrt 5 = -1.7889, so nothing enters."""
    result = weights(sandbox, {**MR, "entry_z": 2.0}, MR_CLOSE)
    assert (result == 0.0).all().all()


def test_mean_reversion_weekly_holds_the_state_of_the_decision_day(sandbox: IStrategySession) -> None:
    # offset 1: Tuesdays Jan 2 and Jan 9; on Jan 9 only D is in (A exited that day)
    tuesday = weights(sandbox, {**MR, "resample": "W", "resample_offset": 1}, MR_CLOSE)
    assert list(tuesday.index) == list(pd.to_datetime(["2024-01-02", "2024-01-09"]))
    assert held(tuesday, "2024-01-09") == {"D": 1.0}
    # offset 0: Mondays Jan 1 and Jan 8; the Friday entries are still held on Monday
    monday = weights(sandbox, {**MR, "resample": "W", "resample_offset": 0}, MR_CLOSE)
    assert held(monday, "2024-01-08") == {"A": 0.5, "D": 0.5}


def test_mean_reversion_keeps_the_most_negative_z_then_column_order(sandbox: IStrategySession) -> None:
    # S1..S5, S7: the 4-flat-then-drop window, z -1.7889 on Jan 5.
    # S6 [10,10,10,10.2,9]: mean 9.84, squares .0256*3 + .1296 + .7056 = .912, var .228, std .47749,
    #   z = -.84/.47749 = -1.7592: enters too, but is the least negative of the seven.
    # N_STOCKS 5: the six at -1.7889 tie, the first five columns of them win: S1..S5; S6 and S7 out.
    drop = [10, 10, 10, 10, 9]
    close = frame({"S6": [10, 10, 10, 10.2, 9], **{f"S{i}": drop for i in range(1, 6)}, "S7": drop})
    result = weights(sandbox, MR, close)
    assert held(result, "2024-01-05") == {f"S{i}": 0.2 for i in range(1, 6)}


def test_mean_reversion_trend_filter_gates_entries(sandbox: IStrategySession) -> None:
    # R rises 10 + 0.1 t for t = 0..63 (16.0 .. 16.3 on days 60..63), then 15.7 on day 64 (Mar 29):
    #   window [16.0,16.1,16.2,16.3,15.7]: mean 16.06, squares .0036 + .0016 + .0196 + .0576 + .1296
    #   = .212, var .053, std .23022, z = -.36/.23022 = -1.5637: enters if above its 60-day average,
    #   (sum of 10 + 0.1 t for t = 5..63 = 59 * 13.4 = 790.6, + 15.7) / 60 = 13.4383 < 15.7: it is.
    # F is flat at 10, then 9 on day 64: z -1.7889, but its average (59 * 10 + 9) / 60 = 9.9833 > 9.
    close = frame({"R": [10 + 0.1 * t for t in range(64)] + [15.7], "F": [10.0] * 64 + [9.0]})
    assert close.index[64] == pd.Timestamp("2024-03-29")
    assert held(weights(sandbox, {**MR, "trend_ma": 60}, close), "2024-03-29") == {"R": 1.0}
    assert held(weights(sandbox, MR, close), "2024-03-29") == {"R": 0.5, "F": 0.5}


# --- volatility ----------------------------------------------------------------------------------
# Returns alternating +a, -a: over 20 of them the mean is 0 and every deviation is a, so the std
# (ddof=1) is a * sqrt(20/19) and the annualised volatility a * sqrt(20/19 * 252) = a * 16.28691.
UNIT = math.sqrt(20 / 19 * 252)


def alternating(amplitude: float, days: int = 21) -> list[float]:
    returns = np.array([0.0] + [amplitude if i % 2 else -amplitude for i in range(1, days)])
    return list(100 * np.cumprod(1 + returns))


# F .03 -> .48861, A .005 -> .08143, B .01 -> .16287, C .015 -> .24430, D .02 -> .32574, E .025 -> .40717
AMPLITUDES = {"F": 0.03, "A": 0.005, "B": 0.01, "C": 0.015, "D": 0.02, "E": 0.025}
VOL_CLOSE = frame({symbol: alternating(a) for symbol, a in AMPLITUDES.items()})
FIRST = "2024-01-29"  # day 20: the first with 20 returns, and a Monday


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        # max_vol .5: all six eligible, the five calmest A..E (F, the first column, is the most volatile);
        # mean vol .005 * 3 * UNIT = .24430, exposure .2 / .24430 = .81865, each .81865 / 5
        ({}, {s: 0.2 / (0.015 * UNIT) / 5 for s in "ABCDE"}),
        # max_vol .35: A..D; mean .005 * 2.5 * UNIT = .20359, exposure .1 / .20359 = .49118, each / 4
        ({"max_vol": 0.35, "target_vol": 0.1}, {s: 0.1 / (0.0125 * UNIT) / 4 for s in "ABCD"}),
        # max_vol .25: A, B, C (.24430); mean .16287, .2 / .16287 = 1.228 capped at 1, each 1/3
        ({"max_vol": 0.25}, {s: 1 / 3 for s in "ABC"}),
    ],
    ids=["five-calmest", "cap-on-max-vol", "exposure-capped-at-one"],
)
def test_volatility_weights_as_worked_out(
    sandbox: IStrategySession, changes: dict[str, Any], expected: dict[str, float]
) -> None:
    result = weights(sandbox, {**VOL, **changes}, VOL_CLOSE)
    assert list(result.index) == list(
        pd.to_datetime(["2024-01-01", "2024-01-08", "2024-01-15", "2024-01-22", FIRST])
    )
    assert (result.loc[:"2024-01-22"] == 0.0).all().all()  # fewer than 20 returns: no volatility yet
    row = result.loc[pd.Timestamp(FIRST)]
    assert {s: w for s, w in row.items() if w > 0} == pytest.approx(expected, rel=1e-9)
    assert row.sum() <= 1.0 + 1e-12


def test_volatility_trend_filter_and_monthly_schedule(sandbox: IStrategySession) -> None:
    # Up and Down move a constant 0.5 % a day: volatility ~0, eligible under any max_vol, exposure
    # capped at 1. Only Up is above its 60-day average.
    days = 70
    close = frame(
        {"Down": [100 * 0.995**t for t in range(days)], "Up": [100 * 1.005**t for t in range(days)]}
    )
    monthly = {**VOL, "resample": "M", "resample_offset": 1, "trend_ma": 60}
    result = weights(sandbox, monthly, close)
    # second trading day of each month: Jan 2, Feb 2 (Feb 1 is a Thursday), Mar 4 (Mar 1 is a Friday), Apr 2
    assert list(result.index) == list(
        pd.to_datetime(["2024-01-02", "2024-02-02", "2024-03-04", "2024-04-02"])
    )
    assert held(result, "2024-03-04") == {}  # day 45: no 60-day average yet
    assert held(result, "2024-04-02") == {"Up": 1.0}  # day 66
    assert held(weights(sandbox, {**monthly, "trend_ma": 0}, close), "2024-03-04") == {"Down": 0.5, "Up": 0.5}


# --- both ----------------------------------------------------------------------------------------
LOOK_AHEAD_SETS = [
    {**MR, "lookback": 10, "entry_z": 1.0, "exit_z": 0.0, "trend_ma": 60},
    {**MR, "lookback": 5, "entry_z": 1.0, "exit_z": 0.5, "resample": "W", "resample_offset": 3},
    {**VOL, "vol_period": 20, "trend_ma": 60, "max_vol": 0.8, "target_vol": 0.1},
    {**VOL, "vol_period": 60, "trend_ma": 0, "max_vol": 0.8, "resample": "M", "resample_offset": 2},
]


@pytest.mark.parametrize(
    "params", LOOK_AHEAD_SETS, ids=["mr-daily", "mr-weekly", "vol-weekly", "vol-monthly"]
)
def test_no_look_ahead(sandbox: IStrategySession, params: dict[str, Any]) -> None:
    """Changing every close after day t leaves every weight decided up to t unchanged."""
    rng = np.random.default_rng(19)
    index = pd.bdate_range("2023-01-02", periods=200)
    close = pd.DataFrame(
        100 * np.exp(np.cumsum(rng.normal(0, 0.02, (200, 6)), axis=0)), index=index, columns=list("ABCDEF")
    )
    cut = index[150]
    changed = close.copy()
    changed.loc[changed.index > cut] *= np.exp(rng.normal(0, 0.2, (49, 6)))
    before, after = weights(sandbox, params, close), weights(sandbox, params, changed)
    assert (before.loc[:cut] > 0).any().any()  # something was held: the comparison means something
    pd.testing.assert_frame_equal(before.loc[:cut], after.loc[:cut])
    assert not before.loc[cut:].iloc[1:].equals(after.loc[cut:].iloc[1:])  # the change did reach later days
    sums = before.sum(axis=1)
    assert ((before >= 0).all().all()) and (sums <= 1.0 + 1e-12).all()


@pytest.mark.parametrize("family", ["mean_reversion", "volatility"])
def test_each_branch_renders_the_parameters_as_constants_and_passes_the_allowlist(family: str) -> None:
    """trend filter on/off x each schedule; every valid set of both families is in test_code_allowlist."""
    base = FAMILY_PARAMS[family]
    for trend_ma, resample in itertools.product((0, 120), FAMILY_ALLOWED[family]["resample"]):
        values = validate_params({**base, "trend_ma": trend_ma, "resample": resample}).model_dump()
        code = FamilyTemplates().render(validate_params(values))
        check_strategy_code(code)
        constants = {
            node.targets[0].id: ast.literal_eval(node.value)
            for node in ast.parse(code).body
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        }
        assert {name: constants[name.upper()] for name in values} == values
        assert ("TREND_MA, min_periods=TREND_MA" in code) == (trend_ma > 0)
        assert f"stop_loss={values['stop_loss']}" in (ast.get_docstring(ast.parse(code)) or "")


def test_the_registry_dispatches_on_strategy_type_and_templates_refuse_other_families() -> None:
    templates = FamilyTemplates()
    for family, values in FAMILY_PARAMS.items():
        code = templates.render(validate_params(values))
        assert templates.for_family(family).name == family
        assert code == templates.for_family(family).render(validate_params(values))
    assert "def decision_dates" in templates.render(validate_params(MEAN_REVERSION))
    assert 'STRATEGY_TYPE = "volatility"' in templates.render(validate_params(VOLATILITY))
    with pytest.raises(ValueError, match="the mean_reversion template cannot render volatility parameters"):
        MeanReversionTemplate().render(validate_params(VOLATILITY))
    with pytest.raises(ValueError, match="no template for the families"):
        FamilyTemplates({"momentum": MomentumTemplate(), "volatility": VolatilityTemplate()})
