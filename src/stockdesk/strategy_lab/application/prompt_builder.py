"""JSON-only prompt sections for the strategist, computed from the schema and the run so far.

The wording around them lives in the strategist's prompt resources; this module decides what the
model is told: the schema, the allowed values, the rules, how earlier iterations scored and which
errors to avoid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from stockdesk.strategy_lab.domain.dtos import (
    DEFAULT_MAX_DRAWDOWN,
    IterationRecord,
    IterationStatus,
    PerformanceMetrics,
)
from stockdesk.strategy_lab.domain.errors import ValidationErrorDetail
from stockdesk.strategy_lab.domain.params import (
    ALLOWED_VALUES,
    MomentumStrategyParams,
    StrategyParamRequest,
)
from stockdesk.strategy_lab.domain.ports import PromptContext

RULES = (
    "Answer with ONE JSON object and nothing else: no code, no markdown headings.",
    "Every parameter must be one of its allowed values, written as a JSON number or string exactly "
    'as listed (stop_loss 0.1 is right, "10%" is wrong).',
    "momentum_period must be <= ma_periods.",
    "reasoning: 50 to 500 characters explaining the choice (plain text, one paragraph).",
    'resample "W" rebalances weekly on weekday resample_offset (0 = Monday .. 4 = Friday); '
    '"M" rebalances monthly resample_offset trading days after the month\'s first trading day.',
    'catalyst_type "revenue" requires recent quarterly revenue above its longer average; '
    '"earnings" does the same on ROE. catalyst_lookback is the short window in periods.',
    "Do not propose a parameter set that was already tried.",
)
RECENT = 3


@dataclass
class RunHistory:
    """What the strategist is told about the run so far."""

    iteration: int
    total: int
    records: list[IterationRecord] = field(default_factory=list)
    champion: IterationRecord | None = None
    best: IterationRecord | None = None  # best Sharpe of all scored, within the drawdown limit or not
    max_drawdown_limit: float = DEFAULT_MAX_DRAWDOWN
    explore: bool = True
    data_notes: list[str] = field(default_factory=list)


class PromptBuilder:
    def build(
        self,
        history: RunHistory | None = None,
        previous_errors: list[ValidationErrorDetail] | None = None,
    ) -> PromptContext:
        return PromptContext(
            output_schema=json.dumps(StrategyParamRequest.model_json_schema(), ensure_ascii=False),
            allowed_values=allowed_values_text(),
            rules="\n".join(f"- {rule}" for rule in RULES),
            performance_context=performance_text(history) if history else "No backtest has run yet.",
            previous_errors=errors_text(previous_errors or []),
        )


def allowed_values_text() -> str:
    lines = []
    for name, values in ALLOWED_VALUES.items():
        description = MomentumStrategyParams.model_fields[name].description
        lines.append(f"- {name}: one of {json.dumps(values)} ({description})")
    return "\n".join(lines)


def params_text(params: MomentumStrategyParams) -> str:
    return json.dumps(params.model_dump(mode="json"), separators=(", ", ": "))


def metrics_text(metrics: PerformanceMetrics) -> str:
    return (
        f"Sharpe {metrics.sharpe:.2f}, annual return {metrics.annual_return:.1%}, "
        f"max drawdown {metrics.max_drawdown:.1%}"
    )


def record_text(record: IterationRecord) -> str:
    head = f"iteration {record.number}"
    if record.params is not None:
        head += f" {params_text(record.params)}"
    if record.metrics is not None:
        beat = " (beat the benchmark)" if record.status == IterationStatus.BEAT_BENCHMARK else ""
        return f"{head} -> {metrics_text(record.metrics)}, {record.metrics.trades} trades{beat}"
    reasons = "; ".join(f"{e.get('field_path')}: {e.get('error_type')}" for e in record.errors[-3:])
    return f"{head} -> {record.status.value.replace('_', ' ')}: {reasons or 'no detail'}"


def performance_text(history: RunHistory) -> str:
    lines = [
        f"Iteration {history.iteration} of {history.total}. Goal: the highest Sharpe ratio with a max "
        f"drawdown no deeper than -{history.max_drawdown_limit:.0%}."
    ]
    lines.extend(history.data_notes)
    champion = history.champion
    if champion is not None and champion.params is not None and champion.metrics is not None:
        lines.append(
            f"Champion so far (iteration {champion.number}): {params_text(champion.params)} -> "
            f"{metrics_text(champion.metrics)}"
        )
        if champion.benchmark is not None:
            lines.append(f"Benchmark (equal-weight universe): {metrics_text(champion.benchmark)}")
    else:
        lines.append("No champion yet: no result stayed within the drawdown limit.")
        best = history.best
        if best is not None and best.params is not None and best.metrics is not None:
            lines.append(
                f"Best Sharpe so far, but its drawdown is too deep (iteration {best.number}): "
                f"{params_text(best.params)} -> {metrics_text(best.metrics)}. Look for a shallower drawdown."
            )
    recent = history.records[-RECENT:]
    if recent:
        lines.append("Latest results:")
        lines.extend(f"- {record_text(r)}" for r in reversed(recent))
    tried = [r.params for r in history.records if r.params is not None]
    if tried:
        lines.append("Already tried (do NOT propose these again):")
        lines.extend(f"- {params_text(p)}" for p in tried)
    if history.explore:
        lines.append("Mode: EXPLORE. Change several parameters at once to test a different idea.")
    else:
        lines.append("Mode: EXPLOIT. Start from the champion and change one or two parameters.")
    return "\n".join(lines)


def errors_text(errors: list[ValidationErrorDetail]) -> str:
    if not errors:
        return "None."
    lines = [f"- {e.field_path}: {e.error_type}, given {e.given_value!r}. {e.suggestion}" for e in errors]
    return "\n".join(lines)
