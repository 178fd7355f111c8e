"""Prompt sections for the strategist, computed from the schema and the run so far.

The wording around them lives in the strategist's prompt resources; this module decides what the
model is told: the answer layout, each family's allowed values and rules, how earlier iterations
scored IN-SAMPLE (the only figures the loop may show it: validation and holdout data are kept from
the model) and which errors to avoid.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from stockdesk.backtest.application import PerformanceMetrics
from stockdesk.strategy_lab.application.family_rules import FAMILY_RULES
from stockdesk.strategy_lab.application.feedback import LAYOUT
from stockdesk.strategy_lab.domain.dtos import DEFAULT_MAX_DRAWDOWN, IterationRecord, IterationStatus
from stockdesk.strategy_lab.domain.errors import ValidationErrorDetail
from stockdesk.strategy_lab.domain.params import FAMILIES, FAMILY_ALLOWED, FAMILY_MODELS, StrategyParams
from stockdesk.strategy_lab.domain.ports import PromptContext

RULES = (
    "Answer in two sections and nothing else: a line REASONING: followed by 50 to 500 characters of "
    "plain text on why you chose this family and these values; then a line JSON: followed by one JSON "
    'object {"params": {...}}. No code, no text after the JSON.',
    'params holds "strategy_type" (the family) and exactly the fields of that family listed above: '
    "a field of another family is an error.",
    "Every parameter must be one of its allowed values, written as a JSON number or string exactly "
    'as listed (stop_loss 0.1 is right, "10%" is wrong).',
    "Do not put the reasoning inside the JSON.",
    "Do not propose a parameter set that was already tried.",
)
# What each family does, in one line (the prompt resources explain the idea behind them).
FAMILY_SUMMARIES = {
    "momentum": "buys the strongest recent risers that trade above their moving average and pass a "
    "fundamental catalyst (growing revenue or net profit).",
    "mean_reversion": "buys stocks that fell far below their recent mean (a low z-score) and holds "
    "them until they recover.",
    "volatility": "holds the calmest stocks (lowest realised volatility) and scales exposure to a "
    "volatility target.",
}
# Rules of a family that are about meaning, not consistency (the consistency ones come from FAMILY_RULES).
FAMILY_NOTES = {
    "momentum": (
        'resample "W" rebalances weekly on weekday resample_offset (0 = Monday .. 4 = Friday); "M" '
        "rebalances monthly resample_offset trading days after the month's first trading day.",
        'catalyst_type "revenue" needs recent revenue growing against its longer average; "earnings" '
        "does the same on net profit. catalyst_lookback is the short window in months.",
    ),
    "mean_reversion": (
        'resample "D" rebalances every trading day; "W" weekly on weekday resample_offset (0 = Monday).',
        "A position enters at z <= -entry_z and is held until z >= -exit_z.",
    ),
    "volatility": (
        'resample "W" rebalances weekly on weekday resample_offset; "M" monthly resample_offset '
        "trading days after the month's first trading day.",
        "Exposure is min(1, target_vol / average volatility of the held stocks); the rest stays in cash.",
    ),
}
RECENT = 3


@dataclass
class RunHistory:
    """What the strategist is told about the run so far.

    `records` carry in-sample metrics only, and `champion` is the best in-sample set so far (the
    loop's selection uses validation data the model never sees).
    """

    iteration: int
    total: int
    records: list[IterationRecord] = field(default_factory=list)
    champion: IterationRecord | None = None
    best: IterationRecord | None = (
        None  # best in-sample Sharpe of all scored, within the drawdown limit or not
    )
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
            output_schema=LAYOUT,
            allowed_values=allowed_values_text(),
            rules="\n".join(f"- {rule}" for rule in RULES),
            performance_context=performance_text(history) if history else "No backtest has run yet.",
            previous_errors=errors_text(previous_errors or []),
        )


def family_text(family: str) -> str:
    """One family: what it does, its fields with their allowed values, its rules."""
    model = FAMILY_MODELS[family]
    lines = [f"### {family}: {FAMILY_SUMMARIES[family]}", f'- strategy_type: "{family}"']
    for name, values in FAMILY_ALLOWED[family].items():
        lines.append(f"- {name}: one of {json.dumps(values)} ({model.model_fields[name].description})")
    rules = [f"{rule.why}." for rule in FAMILY_RULES[family]]
    lines.append("Rules: " + " ".join([*rules, *FAMILY_NOTES[family]]))
    return "\n".join(lines)


def allowed_values_text() -> str:
    return "\n\n".join(family_text(family) for family in FAMILIES)


def params_text(params: StrategyParams) -> str:
    """The set as the model would write it (strategy_type first)."""
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
        return f"{head} -> in-sample {metrics_text(record.metrics)}, {record.metrics.trades} trades{beat}"
    reasons = "; ".join(f"{e.get('field_path')}: {e.get('error_type')}" for e in record.errors[-3:])
    return f"{head} -> {record.status.value.replace('_', ' ')}: {reasons or 'no detail'}"


def families_tried(records: list[IterationRecord]) -> Counter[str]:
    """How many generated sets each family had, in FAMILIES order."""
    counts = Counter(r.params.strategy_type for r in records if r.params is not None)
    return Counter({family: counts[family] for family in FAMILIES if counts[family]})


def performance_text(history: RunHistory) -> str:
    lines = [
        f"Iteration {history.iteration} of {history.total}. Goal: the highest Sharpe ratio with a max "
        f"drawdown no deeper than -{history.max_drawdown_limit:.0%}. Every figure below is in-sample: "
        "later data is kept aside to judge the sets, so prefer ideas that should hold beyond it."
    ]
    lines.extend(history.data_notes)
    best = history.champion
    if best is not None and best.params is not None and best.metrics is not None:
        lines.append(
            f"Best in-sample so far (iteration {best.number}): {params_text(best.params)} -> "
            f"{metrics_text(best.metrics)}"
        )
        if best.benchmark is not None:
            lines.append(f"Benchmark in-sample (equal-weight universe): {metrics_text(best.benchmark)}")
    else:
        lines.append("No in-sample result stayed within the drawdown limit yet.")
        deep = history.best
        if deep is not None and deep.params is not None and deep.metrics is not None:
            lines.append(
                f"Best in-sample Sharpe so far, but its drawdown is too deep (iteration {deep.number}): "
                f"{params_text(deep.params)} -> {metrics_text(deep.metrics)}. Look for a shallower drawdown."
            )
    recent = history.records[-RECENT:]
    if recent:
        lines.append("Latest in-sample results:")
        lines.extend(f"- {record_text(r)}" for r in reversed(recent))
    counts = families_tried(history.records)
    if counts:
        lines.append("Families tried: " + ", ".join(f"{family} ({n})" for family, n in counts.items()))
    tried = [r.params for r in history.records if r.params is not None]
    if tried:
        lines.append("Already tried (do NOT propose these again):")
        lines.extend(f"- {params_text(p)}" for p in tried)
    lines.append(mode_text(history, counts))
    return "\n".join(lines)


def mode_text(history: RunHistory, counts: Counter[str]) -> str:
    if not history.explore:
        return "Mode: EXPLOIT. Start from the best in-sample set: same family, change one or two parameters."
    untried = [family for family in FAMILIES if family not in counts]
    if untried and counts:
        return f"Mode: EXPLORE. Try a family not tried yet: {' or '.join(untried)}."
    return "Mode: EXPLORE. Pick any family and change several parameters at once to test a different idea."


def errors_text(errors: list[ValidationErrorDetail]) -> str:
    if not errors:
        return "None."
    lines = [f"- {e.field_path}: {e.error_type}, given {e.given_value!r}. {e.suggestion}" for e in errors]
    return "\n".join(lines)
