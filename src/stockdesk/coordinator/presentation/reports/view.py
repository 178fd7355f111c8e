"""ResearchSession -> ReportView: everything the report templates show, already worded and formatted.

The session's payloads are dicts dumped by research, debate and judge; they are read here with
.get() defaults only, so an old or partial session still renders. Templates then only loop and
print, which keeps Markdown and HTML saying the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from stockdesk.coordinator.application import ResearchSession
from stockdesk.coordinator.application.aggregation import stored_views
from stockdesk.coordinator.presentation.reports import formatting as fmt
from stockdesk.coordinator.presentation.reports.charts_view import chart_views
from stockdesk.coordinator.presentation.reports.probability import (
    calibration_line,
    lesson_lines,
    model_line,
    probability_figures,
    probability_line,
)
from stockdesk.coordinator.presentation.reports.view_model import (
    Agreement,
    Debate,
    ExpertRow,
    Flag,
    Footer,
    NodeRow,
    Pair,
    Panel,
    PanelCell,
    PanelRound,
    ReportView,
    RiskRow,
    VerdictCard,
)
from stockdesk.data_engineering.application import currency_of

# debate's digest reads these fields; the report reads them too, only when the aggregation has no
# digest for an expert (e.g. no debate gateway was wired)
from stockdesk.judge.application import MIN_EXPERTS_WITH_DATA
from stockdesk.research.application import ExpertView
from stockdesk.shared.figures import ShownFigure, figure_label, format_figure, show_figure, words
from stockdesk.shared.numbers import finite_number

PANEL_ROLES = ("fundamental", "risk", "growth", "sentiment")
NO_DATA = "no data: missing, not a voice"
TONES = {"BUY": "buy", "SELL": "sell", "HOLD": "hold"}


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _texts(value: Any) -> list[str]:
    return [t for t in (fmt.text(v) for v in _list(value)) if t != fmt.DASH]


def _int(value: Any) -> int:
    return int(value) if fmt.is_number(value) else 0


# ---- verdict -------------------------------------------------------------------------------------
def _why_no_verdict(session: ResearchSession) -> str:
    if session.errors.get("judge"):
        return f"The judge failed: {fmt.text(session.errors['judge'])}"
    if session.errors.get("debate"):
        return f"The debate failed, so the judge had nothing to rule on: {fmt.text(session.errors['debate'])}"
    if session.status == "running":
        return "The session is still running."
    if not session.expert_results:
        return "Every expert failed: there was nothing to debate or judge."
    if session.skip_debate:
        return "The debate was skipped on request, and without a debate there is no verdict."
    if not session.debate_outcome:
        return "No debate was run (no debate service was configured), so there is no verdict."
    return "The judge did not run (no judge service was configured)."


# the plan's three levels by action: (entry, stop, target) labels, `figure.plan.<name>`
PLAN_NAMES = {
    "BUY": ("entry", "stop_loss", "take_profit"),
    "SELL": ("exit", "invalidation", "downside_target"),
    "HOLD": ("reference", "watch_below", "watch_above"),
}
PLAN_VARIANTS = ("standard", "conservative")


def _level(plan: Mapping[str, Any], price: str, distance: str, lang: str, currency: str | None) -> str:
    """A level and its move from the entry. The plan stores the distance unsigned; it is signed here by
    the side of the entry the level lies on, as the verdict's own words sign it (-4.95% below)."""
    level, entry = finite_number(plan.get(price)), finite_number(plan.get("entry_price"))
    shown = format_figure(price, level, lang, currency)
    moved = finite_number(plan.get(distance))
    if moved is None:
        return shown
    side = -1 if level is not None and entry is not None and level < entry else 1
    return f"{shown} ({format_figure(distance, side * abs(moved), lang)})"


def plan_rows(
    plan: Mapping[str, Any], lang: str = "en", currency: str | None = None
) -> tuple[list[Pair], list[str]]:
    """The trade plan (judge.domain.dtos.trade_plan.TradePlan) as rows, each number from code, each
    written by the one figures table (`shared.figures`) in `lang`; prices in `currency`."""
    if not plan:
        return [], []
    entry_name, stop_name, target_name = (
        words(f"figure.plan.{n}", lang)
        for n in PLAN_NAMES.get(str(plan.get("action", "")), PLAN_NAMES["BUY"])
    )
    day = plan.get("reference_date")
    entry = format_figure("entry_price", plan.get("entry_price"), lang, currency)
    low, high = (format_figure(k, plan.get(k), lang, currency) for k in ("swing_low", "swing_high"))
    variant = str(plan.get("variant"))
    rows = [
        Pair(entry_name, entry + (f" ({words('figure.plan.close_of', lang, day=day)})" if day else "")),
        Pair(stop_name, _level(plan, "stop_loss_price", "stop_distance_pct", lang, currency)),
        Pair(target_name, _level(plan, "take_profit_price", "target_distance_pct", lang, currency)),
        Pair(figure_label("risk_reward", lang), format_figure("risk_reward", plan.get("risk_reward"), lang)),
        Pair(
            figure_label("atr", lang),
            f"{format_figure('atr', plan.get('atr'), lang, currency)} ({fmt.text(plan.get('atr_source'))})",
        ),
        Pair(words("figure.plan.swing", lang), f"{low} / {high}"),
        Pair(
            words("figure.plan.variant", lang),
            words(f"figure.plan.variant.{variant}", lang) if variant in PLAN_VARIANTS else fmt.text(variant),
        ),
    ]
    rules = [
        f"{name}: {fmt.text(plan.get(key))}"
        for name, key in (("stop", "stop_rule"), ("target", "target_rule"), ("size", "sizing_rule"))
    ]
    return rows, rules


def _adjustment_words(verdict: Mapping[str, Any]) -> list[str]:
    return [fmt.text(_dict(a).get("why")) for a in _list(verdict.get("adjustments"))]


def _stability(verdict: Mapping[str, Any]) -> str:
    stability = _dict(verdict.get("stability"))
    if not stability:
        return ""
    actions = ", ".join(str(a) for a in _list(stability.get("actions")))
    return f"verdict stability {_int(stability.get('agree'))}/{_int(stability.get('samples'))} ({actions})"


def _rules_line(verdict: Mapping[str, Any]) -> str:
    rules = _dict(verdict.get("rules_verdict"))
    if not rules or verdict.get("source") == "rules":
        return ""
    return (
        f"{fmt.text(rules.get('action'))} · confidence {fmt.confidence(rules.get('confidence'))} · "
        f"composite {fmt.number(rules.get('composite'))}"
    )


def _support_line(verdict: Mapping[str, Any]) -> str:
    support = _dict(verdict.get("support"))
    if not support:
        return ""
    voices = f"{_int(support.get('agreeing'))} of {_int(support.get('voices'))} voices"
    return f"{voices} {fmt.text(support.get('stance'))} · confidence cap {fmt.confidence(support.get('cap'))}"


def _dropped(verdict: Mapping[str, Any]) -> list[str]:
    checks = _dict(verdict.get("claim_checks"))
    return _texts(checks.get("dropped"))


def insufficient_card(verdict: Mapping[str, Any]) -> VerdictCard:
    """No evidence, no verdict: HOLD with no confidence number and no plan, and why in words."""
    experts = _texts(verdict.get("experts_with_data"))
    named = f" ({', '.join(experts)})" if experts else ""
    return VerdictCard(
        present=True,
        source=fmt.text(verdict.get("source") or "rules"),
        action=fmt.text(verdict.get("action")).upper(),
        tone="none",
        position=fmt.percent(verdict.get("position_percent")),
        confidence=fmt.DASH,
        entry_strategy=fmt.text(verdict.get("entry_strategy")),
        stop_loss=fmt.text(verdict.get("stop_loss")),
        take_profit=fmt.text(verdict.get("take_profit")),
        time_horizon=fmt.text(verdict.get("time_horizon")),
        reasoning=fmt.text(verdict.get("evidence_reason") or verdict.get("reasoning")),
        insufficient=(
            f"Insufficient evidence (证据不足): {len(experts)} expert(s) had data{named}; a verdict needs "
            f"at least {MIN_EXPERTS_WITH_DATA}, so there is no direction, no confidence and no trade plan."
        ),
        experts_with_data=experts,
        experts_needed=MIN_EXPERTS_WITH_DATA,
    )


def verdict_card(session: ResearchSession, lang: str = "en") -> VerdictCard:
    verdict = _dict(session.verdict)
    if not verdict:
        return VerdictCard(present=False, missing_reason=_why_no_verdict(session))
    if verdict.get("evidence") == "insufficient":
        return insufficient_card(verdict)
    action = fmt.text(verdict.get("action")).upper()
    plan, plan_rules = plan_rows(_dict(verdict.get("trade_plan")), lang, currency_of(session.symbol))
    return VerdictCard(
        source=fmt.text(verdict.get("source") or "llm"),
        plan=plan,
        plan_rules=plan_rules,
        adjustments=_adjustment_words(verdict),
        support=_support_line(verdict),
        stability=_stability(verdict),
        rules_verdict=_rules_line(verdict),
        dropped=_dropped(verdict),
        present=True,
        action=action,
        tone=TONES.get(action, "none"),
        position=fmt.percent(verdict.get("position_percent")),
        confidence=fmt.confidence(verdict.get("confidence")),
        entry_strategy=fmt.text(verdict.get("entry_strategy")),
        stop_loss=fmt.text(verdict.get("stop_loss")),
        take_profit=fmt.text(verdict.get("take_profit")),
        time_horizon=fmt.text(verdict.get("time_horizon")),
        reasoning=fmt.text(verdict.get("reasoning")),
        rules_applied=_texts(verdict.get("rules_applied")),
        risk_warnings=_texts(verdict.get("risk_warnings")),
        probability=probability_line(verdict),
        calibration=calibration_line(verdict),
        signal_model=model_line(verdict),
        lessons=lesson_lines(verdict),
        **probability_figures(verdict),
    )


# ---- experts -------------------------------------------------------------------------------------
def guard_flags(result: Mapping[str, Any]) -> tuple[str, list[Flag]]:
    """The grounding line and the flags of one expert's GuardReport (research.domain.dtos.expert)."""
    guards = _dict(result.get("guards"))
    grounding = _dict(guards.get("grounding")) or _dict(result.get("grounding"))
    checked = _int(grounding.get("numbers_checked"))
    ungrounded = _texts(grounding.get("ungrounded"))
    line = f"{checked} numbers checked, {len(ungrounded)} ungrounded" if grounding else ""
    flags: list[Flag] = []
    if ungrounded:
        flags.append(Flag(f"ungrounded numbers: {', '.join(ungrounded)}", "warn"))
    if trade := _texts(guards.get("trade_instructions")):
        flags.append(Flag(f"trade instructions: {', '.join(trade)}", "warn"))
    if guards.get("flagged"):
        flags.append(Flag("flagged: a guard still failed after the retry", "warn"))
    if guards.get("retried"):
        flags.append(Flag("retried once by a guard", "info"))
    if dropped := _list(guards.get("unverified_sources")):
        flags.append(Flag(f"{len(dropped)} unverified sources dropped", "info"))
    if guards.get("no_information"):
        flags.append(Flag("no information found: answer held to 数据不足", "info"))
    return line, flags


def guard_summary(flags: list[Flag]) -> str:
    """For the experts table: warnings first, as they are what a reader must not miss."""
    warnings = sum(f.level == "warn" for f in flags)
    notes = len(flags) - warnings
    parts = [f"⚠ {warnings} warning(s)"] if warnings else []
    parts += [f"{notes} note(s)"] if notes else []
    return ", ".join(parts) or "ok"


def _key_numbers(view: ExpertView | None, lang: str, currency: str | None) -> list[ShownFigure]:
    """The expert's key figures, each labelled and with its unit (`shared.figures`)."""
    return [show_figure(str(k), v, lang, currency) for k, v in (view.key_figures if view else {}).items()]


def _expert_row(
    name: str,
    result: Mapping[str, Any],
    view: ExpertView | None,
    stances: Mapping[str, Any],
    reused: bool,
    numbers: list[ShownFigure],
) -> ExpertRow:
    grounding, flags = guard_flags(result)
    code = view.code_signal if view is not None else None
    return ExpertRow(
        name=name,
        title=fmt.label(name),
        status="ok",
        reused=reused,
        stance=fmt.text(stances.get(name) or (view.stance if view else None)),
        signal=fmt.text(view.signal if view else None),
        confidence=fmt.confidence(view.confidence if view else None),
        code_signal=f"{code.stance} ({code.score:+.2f})" if code is not None else fmt.DASH,
        code_reasons=list(code.reasons) if code is not None else [],
        key_numbers=numbers,
        reasoning=fmt.text(view.text) if view and view.text else "",
        risks=list(view.risks) if view else [],
        grounding=grounding,
        flags=flags,
        guard_summary=guard_summary(flags),
    )


def expert_rows(session: ResearchSession, lang: str = "en") -> list[ExpertRow]:
    aggregation = _dict(session.aggregation)
    views = {v.expert: v for v in stored_views(aggregation, session.expert_results)}
    stances = _dict(aggregation.get("stances"))
    without = set(_texts(aggregation.get("experts_without_data")))
    names = [str(e) for e in session.experts]
    names += [n for n in [*session.expert_results, *session.expert_errors] if n not in names]
    rows = []
    for name in names:
        reused = name in session.reused_experts
        if name in session.expert_errors:
            error = fmt.text(session.expert_errors[name])
            rows.append(
                ExpertRow(name=name, title=fmt.label(name), status="failed", reused=reused, error=error)
            )
        elif name in session.expert_results:
            result = _dict(session.expert_results[name])
            view = views.get(name)
            numbers = _key_numbers(view, lang, currency_of(session.symbol))
            row = _expert_row(name, result, view, stances, reused, numbers)
            rows.append(replace(row, stance=NO_DATA) if name in without else row)
        else:
            rows.append(ExpertRow(name=name, title=fmt.label(name), status="missing", error="no result"))
    return rows


def agreement(session: ResearchSession) -> Agreement:
    aggregation = _dict(session.aggregation)
    counts = _dict(aggregation.get("stance_counts"))
    succeeded = _list(aggregation.get("experts_succeeded")) or list(session.expert_results)
    failed = _list(aggregation.get("experts_failed")) or list(session.expert_errors)
    return Agreement(
        majority=fmt.text(aggregation.get("majority_stance")),
        ratio=fmt.percent(aggregation.get("agreement_ratio")),
        mean_confidence=fmt.confidence(aggregation.get("mean_confidence")),
        bullish=_int(counts.get("bullish")),
        neutral=_int(counts.get("neutral")),
        bearish=_int(counts.get("bearish")),
        succeeded=len(succeeded),
        failed=len(failed),
        without_data=_texts(aggregation.get("experts_without_data")),
    )


# ---- debate --------------------------------------------------------------------------------------
def _panel(artifact: Mapping[str, Any]) -> Panel:
    rounds = []
    for index, item in enumerate(_list(artifact.get("rounds")), start=1):
        round_ = _dict(item)
        roles = [r for r in PANEL_ROLES if r in round_]
        roles += [r for r, v in round_.items() if r not in PANEL_ROLES and isinstance(v, Mapping)]
        cells = []
        for role in roles:
            say = _dict(round_.get(role))
            cells.append(
                PanelCell(
                    role=role,
                    action=fmt.text(say.get("action")),
                    confidence=fmt.confidence(say.get("confidence")),
                    sources=len(_list(say.get("sources"))),
                    text=fmt.text(say.get("text")),
                )
            )
        rounds.append(PanelRound(number=fmt.text(round_.get("round", index)), cells=cells))
    conclusion = _dict(artifact.get("conclusion"))
    return Panel(
        rounds=rounds,
        conclusion_action=fmt.text(conclusion.get("action")),
        conclusion_confidence=fmt.confidence(conclusion.get("confidence")),
        conclusion_text=fmt.text(conclusion.get("text")),
    )


def _why_no_debate(session: ResearchSession) -> str:
    if session.errors.get("debate"):
        return f"The debate failed: {fmt.text(session.errors['debate'])}"
    insufficient = _dict(session.verdict).get("evidence") == "insufficient"
    if insufficient and not session.llm_settings.get("rules_only"):
        return "The debate was skipped: too few experts had data (insufficient evidence)."
    if session.skip_debate:
        return "The debate was skipped on request."
    if not session.expert_results:
        return "Every expert failed: there was nothing to debate."
    return "No debate was run."


def debate(session: ResearchSession) -> Debate:
    outcome = _dict(session.debate_outcome)
    if not outcome:
        return Debate(present=False, missing_reason=_why_no_debate(session))
    bull, bear = _dict(outcome.get("bull_case")), _dict(outcome.get("bear_case"))
    risks = [_dict(r) for r in _list(outcome.get("risk_matrix"))]
    artifact = _dict(outcome.get("artifact"))
    return Debate(
        present=True,
        mode=fmt.text(outcome.get("mode") or session.debate_mode),
        direction=fmt.text(outcome.get("direction")),
        confidence=fmt.confidence(outcome.get("confidence")),
        experts_considered=[fmt.label(e) for e in _texts(outcome.get("experts_considered"))],
        bull_thesis=fmt.text(bull.get("core_thesis")),
        bull_arguments=_texts(bull.get("supporting_arguments")),
        bull_risks=_texts(bull.get("acknowledged_risks")),
        bear_thesis=fmt.text(bear.get("core_thesis")),
        bear_arguments=_texts(bear.get("supporting_arguments")),
        bear_strengths=_texts(bear.get("acknowledged_strengths")),
        resolution=fmt.text(outcome.get("conflict_resolution")),
        disagreements=_texts(outcome.get("key_disagreements")),
        risk_matrix=[
            RiskRow(
                risk=fmt.text(r.get("risk")),
                probability=fmt.text(r.get("probability")),
                impact=fmt.text(r.get("impact")),
                mitigation=fmt.text(r.get("mitigation")),
            )
            for r in risks
        ],
        panel=_panel(artifact) if artifact else None,
        dropped_sources=_int(outcome.get("dropped_sources")),
        english=_english(_dict(outcome.get("choices")).get("english")),
    )


def _english(given: Any) -> list[str]:
    """Choices mode's English sentences: both cases, the conclusion, the disagreements."""
    english = _dict(given)
    if not english:
        return []
    lines = [fmt.text(_dict(english.get(side)).get("thesis")) for side in ("bull", "bear")]
    lines += [fmt.text(english.get("conclusion")), *_texts(english.get("disagreements"))]
    return [line for line in lines if line != fmt.DASH]


# ---- footer and the whole report -----------------------------------------------------------------
def footer(session: ResearchSession) -> Footer:
    return Footer(
        session_id=session.id,
        parent_session_id=session.parent_session_id or fmt.DASH,
        status=str(session.status),
        started_at=session.started_at.isoformat(sep=" ", timespec="seconds"),
        finished_at=(
            session.finished_at.isoformat(sep=" ", timespec="seconds") if session.finished_at else fmt.DASH
        ),
        duration=fmt.seconds(session.duration_seconds),
        llm_calls=fmt.count(session.llm_calls),
        tokens=fmt.count(session.tokens),
        debate_mode=str(session.debate_mode),
        nodes=[
            NodeRow(
                node=n.node,
                status=str(n.status),
                seconds=fmt.seconds(n.seconds),
                error=fmt.text(n.error) if n.error else "",
            )
            for n in session.nodes
        ],
    )


def build_view(session: ResearchSession, lang: str = "en") -> ReportView:
    """The report's view; `lang` ("en" for the report files) words its figures (`shared.figures`):
    the session page builds it in the page's language."""
    return ReportView(
        symbol=session.symbol,
        as_of=session.as_of.isoformat() if session.as_of else "latest",
        status=str(session.status),
        verdict=verdict_card(session, lang),
        experts=expert_rows(session, lang),
        agreement=agreement(session),
        debate=debate(session),
        errors=[Pair(k, fmt.text(v)) for k, v in session.errors.items()],
        footer=footer(session),
        charts=chart_views(session),
        as_of_clamped=bool(_dict(session.aggregation).get("as_of_clamped")),
    )
