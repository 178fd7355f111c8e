"""C3 of the strategy JSON-params spec: parameter injection, the code check and the rendered momentum
strategy's signals on a small panel worked out by hand (run in the real sandbox). How the answer is
split into its REASONING and JSON sections is in test_reasoning_sections.py; the other families'
templates are in test_family_templates.py."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from stockdesk.strategy_lab.application.code_check import check_strategy_code
from stockdesk.strategy_lab.application.code_generator import TemplateCodeGenerator
from stockdesk.strategy_lab.domain.errors import UnsafeStrategyCodeError
from stockdesk.strategy_lab.domain.params import MomentumStrategyParams, StrategyParams
from stockdesk.strategy_lab.domain.ports import IStrategySession, IStrategyTemplate
from stockdesk.strategy_lab.infrastructure.sandbox.process_sandbox import ProcessSandbox
from stockdesk.strategy_lab.infrastructure.templates.family_templates import FamilyTemplates
from stockdesk.strategy_lab.infrastructure.templates.momentum_template import MomentumTemplate
from tests.strategy_lab.support import REASONING_SPEC as REASONING
from tests.strategy_lab.support import VALID, sections

ANSWER = sections({"strategy_type": "momentum", **VALID}, REASONING)

PARAM_SETS = [
    VALID,
    {**VALID, "catalyst_type": "earnings", "resample": "M", "resample_offset": 1},
    {
        "momentum_period": 5,
        "ma_periods": 20,
        "catalyst_type": "revenue",
        "catalyst_lookback": 6,
        "n_stocks": 5,
        "stop_loss": 0.08,
        "resample": "M",
        "resample_offset": 4,
    },
    {
        "momentum_period": 30,
        "ma_periods": 120,
        "catalyst_type": "earnings",
        "catalyst_lookback": 2,
        "n_stocks": 20,
        "stop_loss": 0.15,
        "resample": "W",
        "resample_offset": 3,
    },
]


@pytest.fixture
def generator() -> TemplateCodeGenerator:
    return TemplateCodeGenerator(FamilyTemplates())


def params(**changes: Any) -> MomentumStrategyParams:
    return MomentumStrategyParams(**{**VALID, **changes})


def render(**changes: Any) -> str:
    return MomentumTemplate().render(params(**changes))


def test_a_valid_answer_renders_the_family_template(generator: TemplateCodeGenerator):
    result = generator.generate(ANSWER)
    assert result.success is True, result.errors
    assert result.params == MomentumStrategyParams(**VALID)
    assert result.reasoning == REASONING
    assert result.code == MomentumTemplate().render(result.params)


# --- parameter injection -----------------------------------------------------------------------


def module_constants(code: str) -> dict[str, Any]:
    constants = {}
    for node in ast.parse(code).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                constants[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:  # PARAMS refers to the constants
                continue
    return constants


@pytest.mark.parametrize("values", PARAM_SETS)
def test_injected_constants_equal_the_params(values: dict[str, Any]):
    params = MomentumStrategyParams(**values)
    code = MomentumTemplate().render(params)
    constants = module_constants(code)
    assert {name: constants[name.upper()] for name in values} == values
    assert constants["CATALYST_COLUMN"] == ("revenue" if values["catalyst_type"] == "revenue" else "profit")
    check_strategy_code(code)
    declared = next(
        n.value for n in ast.parse(code).body if isinstance(n, ast.Assign) and n.targets[0].id == "PARAMS"
    )
    assert isinstance(declared, ast.Dict)
    mapped = {
        ast.literal_eval(k): constants[v.id] for k, v in zip(declared.keys, declared.values, strict=True)
    }
    assert mapped == params.model_dump() and MomentumStrategyParams(**mapped) == params
    assert constants["STOP_LOSS"] == values["stop_loss"]
    assert f"stop_loss={values['stop_loss']}" in ast.get_docstring(ast.parse(code))
    assert "{{" not in code and "{%" not in code
    assert code.endswith("\n") and not code.endswith("\n\n")


@pytest.mark.parametrize("values", [PARAM_SETS[1], PARAM_SETS[3]], ids=["monthly-earnings", "weekly-revenue"])
def test_rendered_module_is_ruff_clean(values: dict[str, Any]):
    pytest.importorskip("ruff")
    code = MomentumTemplate().render(MomentumStrategyParams(**values))
    root = Path(__file__).resolve().parents[2]  # the repo's pyproject.toml: line length 110
    for command in (["check", "--no-cache"], ["format", "--check", "--no-cache"]):
        done = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--stdin-filename", "strategy.py", "-"],
            input=code,
            capture_output=True,
            text=True,
            cwd=root,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_template_branches():
    weekly_revenue = render(catalyst_type="revenue", resample="W")
    monthly_earnings = render(catalyst_type="earnings", resample="M")
    assert 'CATALYST_COLUMN = "revenue"' in weekly_revenue and '"profit"' not in weekly_revenue
    assert 'CATALYST_COLUMN = "profit"' in monthly_earnings
    assert "index.day_of_week >= RESAMPLE_OFFSET" in weekly_revenue and "cumcount" not in weekly_revenue
    assert "cumcount" in monthly_earnings and "day_of_week" not in monthly_earnings
    assert "in each calendar week" in weekly_revenue and "in each month" in monthly_earnings


def test_generator_render_checks_the_code(generator: TemplateCodeGenerator):
    assert generator.render(params()) == render()
    assert MomentumTemplate().name == "momentum"


class BrokenTemplate(IStrategyTemplate):
    """A template with a bug: its code imports os."""

    name = "broken"

    def render(self, params: StrategyParams) -> str:
        return MomentumTemplate().render(params) + "import os\n"


def test_unsafe_template_code_is_raised_not_fed_back_to_the_model():
    generator = TemplateCodeGenerator(BrokenTemplate())
    with pytest.raises(UnsafeStrategyCodeError, match=r"import \(module, name, alias\) \('os', None, None\)"):
        generator.generate(ANSWER)
    with pytest.raises(UnsafeStrategyCodeError):
        generator.render(params())


# --- code check --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("snippet", "reason"),
    [
        ("import os", "import (module, name, alias) ('os', None, None)"),
        ("from os import path", "import (module, name, alias) ('os', 'path', None)"),
        ("import numpy.linalg", "('numpy.linalg', None, None)"),
        ("import numpy as np", "('numpy', None, 'np')"),
        ("from pandas import io", "('pandas', 'io', None)"),
        ("close = open('/etc/passwd')", "call of 'open'"),
        ("close = __import__('os')", "call of '__import__'"),
        ("close = ().__class__", "attribute '__class__'"),
        ("close = eval('1')", "call of 'eval'"),
        ("close = getattr(pd, 'read_csv')", "call of 'getattr'"),
        ("close = pd.read_pickle('x.pkl')", "call of 'read_pickle'"),
        ("close = '{0.__class__}'", "string '{0.__class__}'"),
        ("close = off.format(1)", "call of 'format'"),
        ("close = [c for c in off]", "syntax 'ListComp'"),
        ("close = lambda: 1", "syntax 'Lambda'"),
        ("close = b'x'", "syntax 'bytes constant'"),
        ("close = f'{off}'", "syntax 'JoinedStr'"),
        ("close = off[0]()", "call of 'off[0]'"),
        ("close = decision_dates(off, **{})", "keyword argument '**'"),
        ("def f():\n    global STOP_LOSS\n    STOP_LOSS = 1", "name 'f'"),
        ("def close():\n    global STOP_LOSS\n    STOP_LOSS = 1", "syntax 'Global'"),
        ("X = (", "does not compile"),
    ],
)
def test_code_check_rejects(snippet: str, reason: str):
    with pytest.raises(UnsafeStrategyCodeError) as caught:
        check_strategy_code(render() + "\n" + snippet + "\n")
    assert reason in str(caught.value)
    assert "\n" not in str(caught.value)
    assert "not used by the template" in str(caught.value) or reason == "does not compile"


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ("def generate_weights(", "def other_weights(", "define a generate_weights"),
        ("\nSTOP_LOSS = ", "\nSTOP = ", "STOP_LOSS"),
        ("\nPARAMS = {", "\nSETTINGS = {", "PARAMS"),
    ],
)
def test_code_check_requires_the_entry_points(old: str, new: str, reason: str):
    code = render()
    assert old in code
    with pytest.raises(UnsafeStrategyCodeError, match=reason):
        check_strategy_code(code.replace(old, new, 1).replace('"stop_loss": STOP_LOSS', '"stop_loss": 0.1'))


# --- the rendered strategy on a hand-made panel ------------------------------------------------

HOLIDAYS = pd.to_datetime(["2024-02-14", "2024-05-01", "2024-05-02", "2024-05-03"])
INDEX = pd.bdate_range("2024-01-01", "2024-09-02").difference(HOLIDAYS)
# constant daily growth: momentum == growth once MOMENTUM_PERIOD returns exist
GROWTH = {"A": 0.004, "B": 0.002, "C": 0.006, "D": -0.003, "E": 0.003, "F": 0.005}
QUARTERS = ["2023-03-31", "2023-06-30", "2023-09-30", "2023-12-31"]
ANNOUNCED = ["2023-04-25", "2023-08-20", "2023-10-25", "2023-12-28"]
PANEL_PARAMS = {
    "momentum_period": 5,
    "ma_periods": 20,
    "catalyst_type": "revenue",
    "catalyst_lookback": 2,
    "n_stocks": 5,
    "stop_loss": 0.10,
    "resample": "W",
    "resample_offset": 2,
}


def panel(growth: dict[str, float]) -> pd.DataFrame:
    steps = np.arange(len(INDEX))
    return pd.DataFrame({symbol: 100 * (1 + g) ** steps for symbol, g in growth.items()}, index=INDEX)


def reports(symbol: str, revenue: list[float], announced: list[str] = ANNOUNCED) -> list[dict[str, Any]]:
    ends = [*QUARTERS, "2024-03-31"][: len(revenue)]
    return [
        {
            "symbol": symbol,
            "end_date": pd.Timestamp(end),
            "ann_date": pd.Timestamp(ann),
            "revenue": float(value),
            "profit": 0.1,
        }
        for end, ann, value in zip(ends, announced, revenue, strict=True)
    ]


def fundamentals(e_announced: str = "2024-03-20") -> pd.DataFrame:
    """Lookback 2: flag = mean(last 2 quarters) > mean(last 4, at least 3)."""
    rows = [
        *reports("A", [100, 110, 120, 130]),  # rising: 125 > 115
        # rising until two quarters published the same day; the newer (40: 85 < 100) wins
        *reports("B", [100, 110, 120, 130, 40], [*ANNOUNCED[:3], "2024-04-09", "2024-04-09"]),
        *reports("C", [130, 120, 110, 100]),  # declining: 105 < 115
        *reports("D", [100, 110, 120, 130]),  # rising, but the price falls
        # falling (115 < 120) until Q4 (200: 155 > 140) is published
        *reports("E", [130, 120, 110, 200], [*ANNOUNCED[:3], e_announced]),
        # F: no fundamentals at all
    ]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[IStrategySession]:
    """One worker for the module's strategies (each still runs in a fresh child)."""
    with ProcessSandbox(MomentumTemplate()).session() as session:
        yield session


def run(sandbox: IStrategySession, closes: pd.DataFrame, facts: pd.DataFrame, **changes: Any) -> pd.DataFrame:
    return sandbox.weights(MomentumStrategyParams(**{**PANEL_PARAMS, **changes}), closes, facts)


def weights(sandbox: IStrategySession, **changes: Any) -> pd.DataFrame:
    return run(sandbox, panel(GROWTH), fundamentals(), **changes)


def chosen(frame: pd.DataFrame, day: str) -> dict[str, float]:
    row = frame.loc[pd.Timestamp(day)]
    return {symbol: round(weight, 6) for symbol, weight in row.items() if weight > 0}


def test_selection_on_hand_checked_dates(sandbox: IStrategySession):
    frame = weights(sandbox)
    assert list(frame.columns) == list(GROWTH)
    # MA_PERIODS=20 needs 20 closes: the 20th trading day is Jan 26, so the first Wednesdays hold cash
    assert chosen(frame, "2024-01-24") == {}
    # C: revenue declines; D: falls below its average; E: catalyst not yet on; F: no fundamentals
    assert chosen(frame, "2024-01-31") == {"A": 0.5, "B": 0.5}
    # E's rising quarter is announced on Wednesday Mar 20: not usable that day, usable the next week
    assert chosen(frame, "2024-03-20") == {"A": 0.5, "B": 0.5}
    assert chosen(frame, "2024-03-27") == {"A": 0.333333, "B": 0.333333, "E": 0.333333}
    # B's two quarters announced on Tue Apr 9 take effect Wed Apr 10; the latest end_date (falling) wins
    assert chosen(frame, "2024-04-03") == {"A": 0.333333, "B": 0.333333, "E": 0.333333}
    assert chosen(frame, "2024-04-10") == {"A": 0.5, "E": 0.5}
    sums = frame.sum(axis=1).round(9)
    assert set(sums.unique()) <= {0.0, 1.0}
    assert (sums.loc["2024-01-31":] == 1.0).all()


def test_announcement_takes_effect_on_the_next_trading_day(sandbox: IStrategySession):
    day_before = run(sandbox, panel(GROWTH), fundamentals(e_announced="2024-03-19"))
    assert chosen(day_before, "2024-03-20") == {"A": 0.333333, "B": 0.333333, "E": 0.333333}
    same_day = run(sandbox, panel(GROWTH), fundamentals(e_announced="2024-03-20"))
    assert "E" not in chosen(same_day, "2024-03-20")


def test_without_fundamentals_nothing_passes_the_catalyst_filter(sandbox: IStrategySession):
    columns = ["symbol", "end_date", "ann_date", "revenue", "profit"]
    for empty in (pd.DataFrame(), pd.DataFrame(columns=columns)):
        frame = run(sandbox, panel(GROWTH), empty)
        assert len(frame) == 36 and (frame == 0.0).all().all()


def test_catalyst_type_earnings_reads_profit(sandbox: IStrategySession):
    rows = fundamentals()
    rows["profit"] = rows["revenue"]
    # A's revenue rises but its profit falls: catalyst_lookback 2 months = 1 quarter, 100 < (110 + 100) / 2
    rows.loc[rows["symbol"] == "A", "profit"] = [130.0, 120.0, 110.0, 100.0]
    assert "A" in chosen(run(sandbox, panel(GROWTH), rows), "2024-01-31")  # revenue: on
    frame = run(sandbox, panel(GROWTH), rows, catalyst_type="earnings")
    assert "A" not in chosen(frame, "2024-01-31")
    assert "B" in chosen(frame, "2024-01-31")


def test_top_n_by_momentum_with_ties_in_column_order(sandbox: IStrategySession):
    growth = {"S1": 0.002, "S2": 0.006, "S3": 0.005, "S4": 0.004, "S5": 0.003, "S6": 0.002}
    rows = pd.DataFrame([row for symbol in growth for row in reports(symbol, [100, 110, 120, 130])])
    frame = run(sandbox, panel(growth), rows)
    # six eligible, N_STOCKS=5: S1 and S6 tie for last place, the earlier column wins
    assert chosen(frame, "2024-02-07") == {symbol: 0.2 for symbol in ["S1", "S2", "S3", "S4", "S5"]}


def test_weekly_decision_dates_wednesday_with_holiday_fallbacks(sandbox: IStrategySession):
    frame = weights(sandbox)
    wednesdays = pd.date_range("2024-01-03", "2024-08-28", freq="W-WED").difference(HOLIDAYS)
    # Feb 14 is a holiday: Thursday; May 1-3 are holidays: Tuesday Apr 30 (last day of the week);
    # the panel ends on Monday Sep 2: that week's last trading day
    expected = wednesdays.union(pd.to_datetime(["2024-02-15", "2024-04-30", "2024-09-02"]))
    assert list(frame.index) == list(expected)
    assert len(frame) == 36


def test_monthly_decision_dates_second_trading_day(sandbox: IStrategySession):
    frame = weights(sandbox, resample="M", resample_offset=1)
    expected = [
        "2024-01-02",
        "2024-02-02",
        "2024-03-04",
        "2024-04-02",
        "2024-05-07",  # May 1-3 are holidays: Mon 6, Tue 7
        "2024-06-04",
        "2024-07-02",
        "2024-08-02",
        "2024-09-02",  # the only September day: min(1, n - 1) = 0
    ]
    assert list(frame.index) == list(pd.to_datetime(expected))
    assert chosen(frame, "2024-04-02") == {"A": 0.333333, "B": 0.333333, "E": 0.333333}
    assert chosen(frame, "2024-05-07") == {"A": 0.5, "E": 0.5}
