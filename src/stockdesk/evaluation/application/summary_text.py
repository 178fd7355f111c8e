"""The one paragraph at the top of a report: what the run says, in plain words, with its numbers.

Significance language is fixed: a rank IC is "distinguishable from zero" when |t| >= 2; a mode is
"distinguishable from the rules baseline" only when the bootstrap interval excludes 0.
"""

from __future__ import annotations

from typing import Any

from stockdesk.evaluation.application.formatting import num, pct
from stockdesk.evaluation.application.scoring import RULES_BASELINE
from stockdesk.evaluation.domain.dtos import EvaluationConfig, EvaluationMode, EvaluationReport

T_SIGNIFICANT = 2.0


def _pct(value: float | None) -> str:
    return pct(value, missing="n/a")


def _num(value: float | None, digits: int = 3) -> str:
    return num(value, digits, missing="n/a")


def ic_sentence(mode: str, figures: dict[str, Any]) -> str:
    ic = figures["rank_ic"]
    if ic["mean"] is None:
        return f"{mode} mode: no rank IC (fewer than 5 symbols on every date)"
    t = ic["t"]
    verdict = (
        "distinguishable from zero"
        if t is not None and abs(t) >= T_SIGNIFICANT
        else "not distinguishable from zero"
    )
    interval = ic.get("interval") or {}
    span = (
        f", 95% interval {_num(interval['low'])} to {_num(interval['high'])}"
        if interval.get("low") is not None
        else ""
    )
    return f"{mode} mode: rank IC {_num(ic['mean'])} (t {_num(t, 1)}{span}), {verdict}"


SKILL_AT = 0.005  # a Brier skill below this is no skill worth the name


def skill_sentence(figures_by_h: dict[str, Any]) -> str:
    """Per horizon: Brier skill over the walk-forward base rate and ECE, then what they mean."""
    shown = {h: f for h, f in figures_by_h.items() if f.get("brier_skill_walk_forward") is not None}
    if not shown:
        return ""
    parts = ", ".join(
        f"{h} days {f['brier_skill_walk_forward']:+.3f} (ECE {_num(f.get('ece'))})" for h, f in shown.items()
    )
    skilled = [h for h, f in shown.items() if f["brier_skill_walk_forward"] >= SKILL_AT]
    meaning = (
        f"a small positive skill at {', '.join(skilled)} days (no interval is computed for it: tentative)"
        if skilled
        else "no measurable skill: the probabilities are about the base rate a forecaster knew at each "
        "date, so treat them as that, not as an edge"
    )
    return f" Brier skill over the walk-forward base rate: {parts}; {meaning}."


def bootstrap_sentence(figures: dict[str, Any]) -> str:
    interval = figures.get("bootstrap", {}).get("hit_rate")
    if not interval or interval.get("observed") is None:
        return ""
    diff = interval["observed"] * 100
    if interval.get("low") is None:
        return f" Hit rate {diff:+.1f} points vs the rules baseline (no interval)."
    span = f"95% interval {interval['low'] * 100:+.1f} to {interval['high'] * 100:+.1f}"
    word = "distinguishable from" if interval["distinguishable"] else "not distinguishable from"
    return f" Hit rate {diff:+.1f} points vs the rules baseline ({span}): {word} the rules baseline."


def summary_text(report: EvaluationReport, config: EvaluationConfig) -> str:
    mode = config.mode.value
    figures_by_h = report.metrics.get(mode)
    symbols = len({p.symbol for p in report.points})
    dates = len({p.as_of for p in report.points})
    head = f"{len(report.points)} verdicts ({symbols} symbols, {dates} dates, {config.start} to {config.end})"
    if not figures_by_h:
        failed = f"; {len(report.failed)} failed" if report.failed else ""
        return f"{head}: nothing to score{failed}."
    h = str(max(config.horizons) if str(max(config.horizons)) in figures_by_h else config.horizons[0])
    figures = figures_by_h[h]
    hold = (report.metrics.get("always_hold") or {}).get(h, {})
    buy = (report.metrics.get("buy_and_hold") or {}).get(h, {})
    parts = [
        f"{head}, horizon {h} days. {ic_sentence(mode, figures)}; hit rate {_pct(figures['hit_rate'])} "
        f"(always-HOLD {_pct(hold.get('hit_rate'))}, buy-and-hold {_pct(buy.get('hit_rate'))}); "
        f"Brier {_num(figures['brier'])} (skill {_num(figures['brier_skill'])})."
    ]
    parts.append(skill_sentence(figures_by_h))
    if len(config.symbols) == 1 and not config.benchmark:
        parts.append(
            " One symbol and no --benchmark: the benchmark is the symbol itself, so every excess return"
            " is 0 and the excess figures measure nothing; name a --benchmark."
        )
    if config.mode is not EvaluationMode.RULES and RULES_BASELINE in report.metrics:
        parts.append(bootstrap_sentence(figures))
    after = figures.get("after_cutoff", {})
    if config.mode is not EvaluationMode.RULES:
        parts.append(
            f" After the model's knowledge cutoff ({config.knowledge_cutoff}): "
            f"{after.get('count', 0)} points, "
            f"hit rate {_pct(after.get('hit_rate'))}."
        )
    if report.reflection is not None:
        parts.append(" " + report.reflection["summary"])
    if report.failed:
        parts.append(
            f" {len(report.failed)} point(s) failed after retries and are not scored (listed below)."
        )
    return "".join(parts)
