"""What the strategist is told: the three families with their values and rules, the answer layout with
one valid example per family, and the run so far in in-sample figures only."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest

from stockdesk.backtest.application import PerformanceMetrics, StrategyMetrics
from stockdesk.llm_platform.application.llm_handle import LLMHandle
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.strategy_lab.application.code_generator import TemplateCodeGenerator
from stockdesk.strategy_lab.application.prompt_builder import PromptBuilder, RunHistory, performance_text
from stockdesk.strategy_lab.domain.dtos import IterationRecord, IterationStatus
from stockdesk.strategy_lab.domain.params import FAMILIES, FAMILY_ALLOWED, validate_params
from stockdesk.strategy_lab.infrastructure.agents.strategist.agent import SAMPLING, StrategistAgent
from stockdesk.strategy_lab.infrastructure.templates.family_templates import FamilyTemplates
from tests.conftest import scripted_service
from tests.strategy_lab.support import MEAN_REVERSION, PARAMS, VOLATILITY


def prompt(history: RunHistory | None = None) -> str:
    agent = StrategistAgent(LLMHandle(scripted_service(ScriptedProvider(["unused"])), SAMPLING))
    return agent.render(PromptBuilder().build(history))


def metrics(sharpe: float, annual: float = 0.1, drawdown: float = -0.1) -> dict[str, Any]:
    return {
        "total_return": annual,
        "annual_return": annual,
        "sharpe": sharpe,
        "sortino": sharpe,
        "max_drawdown": drawdown,
        "calmar": 1.0,
        "volatility": 0.2,
        "days": 250,
    }


def record(number: int, params: dict[str, Any], sharpe: float, validation: float = 9.87) -> IterationRecord:
    return IterationRecord(
        run_id="run",
        number=number,
        status=IterationStatus.RAN,
        params=validate_params(params),
        metrics=StrategyMetrics(**metrics(sharpe), turnover=3.0, win_rate=0.5, trades=40),
        benchmark=PerformanceMetrics(**metrics(0.4)),
        validation=StrategyMetrics(
            **metrics(validation, 0.777, -0.0123), turnover=3.0, win_rate=0.5, trades=9
        ),
        started_at=datetime(2024, 1, 1, tzinfo=UTC),
    )


def test_the_prompt_describes_every_family_with_its_values_and_rules() -> None:
    text = prompt()
    for family in FAMILIES:
        assert f"### {family}: " in text
        assert f'- strategy_type: "{family}"' in text
        for name, values in FAMILY_ALLOWED[family].items():
            assert re.search(rf"- {name}: one of {re.escape(str(values).replace(chr(39), chr(34)))}", text), (
                name
            )
    for rule in (
        "momentum_period must not exceed ma_periods.",
        "exit_z must be below entry_z.",
        'resample_offset must be 0 with resample "D".',
        "target_vol must be below max_vol.",
        "trend_ma must be 0 or >= vol_period.",
    ):
        assert rule in text
    assert "REASONING:\n<50-500 characters: why this family and these values>\n\nJSON:\n" in text
    assert "{" in text and "{{" not in text  # the resource's escaped braces came out single


def test_the_examples_are_valid_answers_one_per_family() -> None:
    """Each example in the prompt goes through the generator as a model answer would."""
    text = prompt().split("## Example answers\n", 1)[1].split("\n## ", 1)[0]
    examples = [f"REASONING:{part}".strip() for part in text.split("REASONING:")[1:]]
    generator = TemplateCodeGenerator(FamilyTemplates())
    results = [generator.generate(example) for example in examples]
    assert all(r.success for r in results), [r.errors for r in results]
    assert [r.params.strategy_type for r in results if r.params] == list(FAMILIES)


def test_performance_is_in_sample_and_families_are_counted() -> None:
    records = [
        record(1, PARAMS, 0.8),
        record(2, {**PARAMS, "n_stocks": 10}, 1.1),
        record(3, VOLATILITY, 0.6),
        record(4, {**PARAMS, "n_stocks": 15}, 0.7),
    ]
    text = performance_text(
        RunHistory(iteration=5, total=5, records=records, champion=records[1], explore=True)
    )
    assert "Every figure below is in-sample" in text
    assert 'Best in-sample so far (iteration 2): {"strategy_type": "momentum", ' in text
    assert "Sharpe 1.10" in text and "champion" not in text.lower()
    assert "Benchmark in-sample (equal-weight universe): Sharpe 0.40" in text
    assert '- iteration 3 {"strategy_type": "volatility", ' in text
    assert "-> in-sample Sharpe 0.60, annual return 10.0%, max drawdown -10.0%, 40 trades" in text
    assert "Families tried: momentum (3), volatility (1)" in text
    assert text.endswith("Mode: EXPLORE. Try a family not tried yet: mean_reversion.")
    # the validation figures (Sharpe 9.87, 77.7 %, -1.2 %, 9 trades) never reach the model
    assert "9.87" not in text and "77.7" not in text and "-1.2%" not in text and "9 trades" not in text


@pytest.mark.parametrize(
    ("explore", "tried", "mode"),
    [
        (
            True,
            [],
            "Mode: EXPLORE. Pick any family and change several parameters at once to test a different idea.",
        ),
        (
            True,
            [PARAMS, MEAN_REVERSION, VOLATILITY],
            "Mode: EXPLORE. Pick any family and change several parameters at once to test a different idea.",
        ),
        (True, [MEAN_REVERSION], "Mode: EXPLORE. Try a family not tried yet: momentum or volatility."),
        (
            False,
            [MEAN_REVERSION],
            "Mode: EXPLOIT. Start from the best in-sample set: same family, change one or two parameters.",
        ),
    ],
)
def test_the_mode_line(explore: bool, tried: list[dict[str, Any]], mode: str) -> None:
    records = [record(n, values, 0.5) for n, values in enumerate(tried, start=1)]
    text = performance_text(RunHistory(iteration=len(tried) + 1, total=9, records=records, explore=explore))
    assert text.endswith(mode)
    assert ("Families tried" in text) == bool(tried)
    if not records:
        assert "No in-sample result stayed within the drawdown limit yet." in text


def test_without_a_best_set_the_deep_drawdown_one_is_shown_in_sample() -> None:
    deep = record(1, MEAN_REVERSION, 1.5)
    text = performance_text(RunHistory(iteration=2, total=3, records=[deep], champion=None, best=deep))
    assert "No in-sample result stayed within the drawdown limit yet." in text
    assert "Best in-sample Sharpe so far, but its drawdown is too deep (iteration 1)" in text
