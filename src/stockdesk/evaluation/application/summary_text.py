"""The one paragraph at the top of a report: what the run says, in plain words, with its numbers,
in each language (the shared catalogue's `eval.*`): the report stores the English as `summary` and
every language in `i18n`, which a page shows in its own.

Significance language is fixed: a rank IC is "distinguishable from zero" when |t| >= 2; a mode is
"distinguishable from the rules baseline" only when the bootstrap interval excludes 0.
"""

from __future__ import annotations

from typing import Any

from stockdesk.evaluation.application.formatting import num, pct
from stockdesk.evaluation.application.reflection import reflection_sentence
from stockdesk.evaluation.application.scoring import RULES_BASELINE
from stockdesk.evaluation.domain.dtos import EvaluationConfig, EvaluationMode, EvaluationReport
from stockdesk.shared.wording import LANGUAGES, UnknownText, say

T_SIGNIFICANT = 2.0


def _pct(value: float | None, lang: str = "en") -> str:
    return pct(value, missing=say("eval.na", lang))


def _num(value: float | None, digits: int = 3, lang: str = "en") -> str:
    return num(value, digits, missing=say("eval.na", lang))


def _mode(mode: str, lang: str) -> str:
    try:
        return say(f"chart.eval.mode_name.{mode}", lang)
    except UnknownText:
        return mode


def ic_sentence(mode: str, figures: dict[str, Any], lang: str = "en") -> str:
    ic = figures["rank_ic"]
    if ic["mean"] is None:
        return say("eval.ic_none", lang, mode=_mode(mode, lang))
    t = ic["t"]
    significant = t is not None and abs(t) >= T_SIGNIFICANT
    verdict = say("eval.ic_significant" if significant else "eval.ic_not_significant", lang)
    interval = ic.get("interval") or {}
    span = (
        say(
            "eval.ic_span", lang, low=_num(interval["low"], lang=lang), high=_num(interval["high"], lang=lang)
        )
        if interval.get("low") is not None
        else ""
    )
    values = {"mode": _mode(mode, lang), "ic": _num(ic["mean"], lang=lang), "t": _num(t, 1, lang)}
    return say("eval.ic", lang, span=span, verdict=verdict, **values)


SKILL_AT = 0.005  # a Brier skill below this is no skill worth the name


def skill_sentence(figures_by_h: dict[str, Any], lang: str = "en") -> str:
    """Per horizon: Brier skill over the walk-forward base rate and ECE, then what they mean."""
    shown = {h: f for h, f in figures_by_h.items() if f.get("brier_skill_walk_forward") is not None}
    if not shown:
        return ""
    parts = ", ".join(
        say(
            "eval.skill_part",
            lang,
            h=h,
            skill=f"{f['brier_skill_walk_forward']:+.3f}",
            ece=_num(f.get("ece"), lang=lang),
        )
        for h, f in shown.items()
    )
    skilled = [h for h, f in shown.items() if f["brier_skill_walk_forward"] >= SKILL_AT]
    meaning = (
        say("eval.skill_some", lang, horizons=say("eval.separator", lang).join(skilled))
        if skilled
        else say("eval.skill_none", lang)
    )
    return say("eval.skill", lang, parts=parts, meaning=meaning)


def bootstrap_sentence(figures: dict[str, Any], lang: str = "en") -> str:
    interval = figures.get("bootstrap", {}).get("hit_rate")
    if not interval or interval.get("observed") is None:
        return ""
    diff = f"{interval['observed'] * 100:+.1f}"
    if interval.get("low") is None:
        return say("eval.bootstrap_none", lang, diff=diff)
    span = say(
        "eval.bootstrap_span",
        lang,
        low=f"{interval['low'] * 100:+.1f}",
        high=f"{interval['high'] * 100:+.1f}",
    )
    word = say(
        "eval.bootstrap_distinguishable"
        if interval["distinguishable"]
        else "eval.bootstrap_not_distinguishable",
        lang,
    )
    return say("eval.bootstrap", lang, diff=diff, span=span, word=word)


def summary_text(report: EvaluationReport, config: EvaluationConfig, lang: str = "en") -> str:
    mode = config.mode.value
    figures_by_h = report.metrics.get(mode)
    symbols = len({p.symbol for p in report.points})
    dates = len({p.as_of for p in report.points})
    head = say(
        "eval.head",
        lang,
        n=len(report.points),
        symbols=symbols,
        dates=dates,
        start=config.start,
        end=config.end,
    )
    if not figures_by_h:
        failed = say("eval.nothing_failed", lang, n=len(report.failed)) if report.failed else ""
        return say("eval.nothing", lang, head=head, failed=failed)
    h = str(max(config.horizons) if str(max(config.horizons)) in figures_by_h else config.horizons[0])
    figures = figures_by_h[h]
    hold = (report.metrics.get("always_hold") or {}).get(h, {})
    buy = (report.metrics.get("buy_and_hold") or {}).get(h, {})
    parts = [
        say(
            "eval.main",
            lang,
            head=head,
            h=h,
            ic=ic_sentence(mode, figures, lang),
            hit=_pct(figures["hit_rate"], lang),
            hold=_pct(hold.get("hit_rate"), lang),
            buy=_pct(buy.get("hit_rate"), lang),
            brier=_num(figures["brier"], lang=lang),
            skill=_num(figures["brier_skill"], lang=lang),
        ),
        skill_sentence(figures_by_h, lang),
    ]
    if len(config.symbols) == 1 and not config.benchmark:
        parts.append(say("eval.one_symbol", lang))
    if config.mode is not EvaluationMode.RULES and RULES_BASELINE in report.metrics:
        parts.append(bootstrap_sentence(figures, lang))
    after = figures.get("after_cutoff", {})
    if config.mode is not EvaluationMode.RULES:
        parts.append(
            say(
                "eval.after_cutoff",
                lang,
                cutoff=config.knowledge_cutoff,
                count=after.get("count", 0),
                hit=_pct(after.get("hit_rate"), lang),
            )
        )
    if report.reflection is not None:
        parts.append(" " + reflection_sentence(report.reflection, lang))
    if report.failed:
        parts.append(say("eval.failed", lang, n=len(report.failed)))
    return "".join(parts)


def summaries(report: EvaluationReport, config: EvaluationConfig) -> dict[str, dict[str, str]]:
    """The summary in every language: the report's `i18n`."""
    return {lang: {"summary": summary_text(report, config, lang)} for lang in LANGUAGES}
