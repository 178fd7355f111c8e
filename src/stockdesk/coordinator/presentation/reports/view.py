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
from stockdesk.coordinator.presentation.reports.position_view import position_card
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
from stockdesk.shared.wording import UnknownText, in_language, say

PANEL_ROLES = ("fundamental", "risk", "growth", "sentiment")
TONES = {"BUY": "buy", "SELL": "sell", "HOLD": "hold"}


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _texts(value: Any) -> list[str]:
    return [t for t in (fmt.text(v) for v in _list(value)) if t != fmt.DASH]


def _int(value: Any) -> int:
    return int(value) if fmt.is_number(value) else 0


def named(prefix: str, value: Any, lang: str) -> str:
    """A closed-list word (an action, a stance, an expert's own signal word, a level) in `lang`: its
    shared catalogue text, or the value as stored when the catalogue does not know it."""
    shown = fmt.text(value)
    try:
        return say(f"{prefix}{shown}", lang)
    except UnknownText:
        return shown


def _title(expert: str, lang: str) -> str:
    """An expert's name: as the report files always wrote it in English, else the catalogue's."""
    return fmt.label(expert) if lang == "en" else named("analyze.expert.", expert, lang)


def _names(prefix: str, values: list[str], lang: str) -> list[str]:
    return [named(prefix, v, lang) for v in values]


# ---- verdict -------------------------------------------------------------------------------------
def _why_no_verdict(session: ResearchSession) -> tuple[str, str]:
    """(why, in the catalogue's words; the stored error it quotes, if any)."""
    for node, key in (("judge", "judge_failed"), ("debate", "debate_failed")):
        if session.errors.get(node):
            return key, fmt.text(session.errors[node])
    if session.status in ("running", "cancelled", "interrupted"):
        return str(session.status), ""
    if not session.expert_results:
        return "all_failed", ""
    if session.skip_debate:
        return "debate_skipped", ""
    if not session.debate_outcome:
        return "no_debate", ""
    return "no_judge", ""


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
            f"{format_figure('atr', plan.get('atr'), lang, currency)} "
            f"({fmt.text(in_language(plan, 'atr_source', lang))})",
        ),
        Pair(words("figure.plan.swing", lang), f"{low} / {high}"),
        Pair(
            words("figure.plan.variant", lang),
            words(f"figure.plan.variant.{variant}", lang) if variant in PLAN_VARIANTS else fmt.text(variant),
        ),
    ]
    rules = [
        say(
            "report.plan_rule",
            lang,
            name=say(f"report.plan_rule.{name}", lang),
            rule=fmt.text(in_language(plan, key, lang)),
        )
        for name, key in (("stop", "stop_rule"), ("target", "target_rule"), ("size", "sizing_rule"))
    ]
    return rows, rules


def _adjustment_words(verdict: Mapping[str, Any], lang: str) -> list[str]:
    return [fmt.text(in_language(_dict(a), "why", lang)) for a in _list(verdict.get("adjustments"))]


def _stability(verdict: Mapping[str, Any], lang: str) -> str:
    stability = _dict(verdict.get("stability"))
    if not stability:
        return ""
    actions = say("list.separator", lang).join(
        named("action.", a, lang) for a in _list(stability.get("actions"))
    )
    agree, samples = _int(stability.get("agree")), _int(stability.get("samples"))
    return say("report.stability", lang, agree=agree, samples=samples, actions=actions)


def _rules_line(verdict: Mapping[str, Any], lang: str) -> str:
    rules = _dict(verdict.get("rules_verdict"))
    if not rules or verdict.get("source") == "rules":
        return ""
    return say(
        "report.rules_line",
        lang,
        action=named("action.", rules.get("action"), lang),
        confidence=fmt.confidence(rules.get("confidence")),
        composite=fmt.number(rules.get("composite")),
    )


def _support_line(verdict: Mapping[str, Any], lang: str) -> str:
    support = _dict(verdict.get("support"))
    if not support:
        return ""
    voices = say(
        "verdict.support",
        lang,
        agreeing=_int(support.get("agreeing")),
        voices=_int(support.get("voices")),
        stance=named("stance.", support.get("stance"), lang),
    )
    return say("report.support_line", lang, voices=voices, cap=fmt.confidence(support.get("cap")))


def _dropped(verdict: Mapping[str, Any]) -> list[str]:
    checks = _dict(verdict.get("claim_checks"))
    return _texts(checks.get("dropped"))


def _worded(verdict: Mapping[str, Any], field: str, lang: str) -> str:
    return fmt.text(in_language(verdict, field, lang))


def _by_code(verdict: Mapping[str, Any], field: str, lang: str) -> bool:
    """Whether the verdict's `field` shown in `lang` is code's words (stored in `i18n`), not the model's."""
    return bool(_dict(_dict(verdict.get("i18n")).get(lang)).get(field))


def insufficient_card(verdict: Mapping[str, Any], lang: str = "en") -> VerdictCard:
    """No evidence, no verdict: HOLD with no confidence number and no plan, and why in words."""
    experts = _texts(verdict.get("experts_with_data"))
    listed = ", ".join(experts)  # the report names them as stored; a page in another language by name
    if lang != "en":
        listed = say("list.separator", lang).join(_names("analyze.expert.", experts, lang))
    shown = say("report.insufficient.named", lang, experts=listed) if experts else ""
    reason_field = "evidence_reason" if verdict.get("evidence_reason") else "reasoning"
    return VerdictCard(
        present=True,
        source=fmt.text(verdict.get("source") or "rules"),
        action=fmt.text(verdict.get("action")).upper(),
        tone="none",
        position=fmt.percent(verdict.get("position_percent")),
        confidence=fmt.DASH,
        entry_strategy=_worded(verdict, "entry_strategy", lang),
        stop_loss=_worded(verdict, "stop_loss", lang),
        take_profit=_worded(verdict, "take_profit", lang),
        time_horizon=_worded(verdict, "time_horizon", lang),
        reasoning=_worded(verdict, reason_field, lang),
        reasoning_by_code=True,
        insufficient=say(
            "report.insufficient", lang, n=len(experts), named=shown, needed=MIN_EXPERTS_WITH_DATA
        ),
        experts_with_data=experts,
        experts_needed=MIN_EXPERTS_WITH_DATA,
    )


def verdict_card(session: ResearchSession, lang: str = "en") -> VerdictCard:
    verdict = _dict(session.verdict)
    if not verdict:
        key, detail = _why_no_verdict(session)
        return VerdictCard(
            present=False, missing_reason=say(f"report.no_verdict.{key}", lang), missing_detail=detail
        )
    if verdict.get("evidence") == "insufficient":
        return insufficient_card(verdict, lang)
    action = fmt.text(verdict.get("action")).upper()
    plan, plan_rules = plan_rows(_dict(verdict.get("trade_plan")), lang, currency_of(session.symbol))
    return VerdictCard(
        source=fmt.text(verdict.get("source") or "llm"),
        plan=plan,
        plan_rules=plan_rules,
        adjustments=_adjustment_words(verdict, lang),
        support=_support_line(verdict, lang),
        stability=_stability(verdict, lang),
        rules_verdict=_rules_line(verdict, lang),
        dropped=_dropped(verdict),
        present=True,
        action=action,
        tone=TONES.get(action, "none"),
        position=fmt.percent(verdict.get("position_percent")),
        confidence=fmt.confidence(verdict.get("confidence")),
        entry_strategy=_worded(verdict, "entry_strategy", lang),
        stop_loss=_worded(verdict, "stop_loss", lang),
        take_profit=_worded(verdict, "take_profit", lang),
        time_horizon=_worded(verdict, "time_horizon", lang),
        reasoning=_worded(verdict, "reasoning", lang),
        reasoning_by_code=_by_code(verdict, "reasoning", lang),
        rules_applied=_texts(verdict.get("rules_applied")),
        risk_warnings=_texts(in_language(verdict, "risk_warnings", lang)),
        risks_by_code=_by_code(verdict, "risk_warnings", lang),
        probability=probability_line(verdict, lang),
        calibration=calibration_line(verdict, lang),
        signal_model=model_line(verdict, lang),
        lessons=lesson_lines(verdict, lang),
        **probability_figures(verdict),
    )


# ---- experts -------------------------------------------------------------------------------------
def guard_flags(result: Mapping[str, Any], lang: str = "en") -> tuple[str, list[Flag]]:
    """The grounding line and the flags of one expert's GuardReport (research.domain.dtos.expert)."""
    guards = _dict(result.get("guards"))
    grounding = _dict(guards.get("grounding")) or _dict(result.get("grounding"))
    checked = _int(grounding.get("numbers_checked"))
    ungrounded = _texts(grounding.get("ungrounded"))
    line = say("report.guard.line", lang, checked=checked, ungrounded=len(ungrounded)) if grounding else ""
    flags: list[Flag] = []
    if ungrounded:
        flags.append(Flag(say("report.guard.ungrounded", lang), "warn", ", ".join(ungrounded)))
    if trade := _texts(guards.get("trade_instructions")):
        flags.append(Flag(say("report.guard.trade", lang), "warn", ", ".join(trade)))
    if guards.get("flagged"):
        flags.append(Flag(say("report.guard.flagged", lang), "warn"))
    if guards.get("retried"):
        flags.append(Flag(say("report.guard.retried", lang), "info"))
    if dropped := _list(guards.get("unverified_sources")):
        flags.append(Flag(say("report.guard.unverified", lang, n=len(dropped)), "info"))
    if guards.get("no_information"):
        flags.append(Flag(say("report.guard.no_information", lang), "info"))
    return line, flags


def guard_summary(flags: list[Flag], lang: str = "en") -> str:
    """For the experts table: warnings first, as they are what a reader must not miss."""
    warnings = sum(f.level == "warn" for f in flags)
    notes = len(flags) - warnings
    parts = [say("report.guard.warnings", lang, n=warnings)] if warnings else []
    parts += [say("report.guard.notes", lang, n=notes)] if notes else []
    return ", ".join(parts) or say("report.guard.ok", lang)


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
    lang: str = "en",
) -> ExpertRow:
    grounding, flags = guard_flags(result, lang)
    code = view.code_signal if view is not None else None
    code_signal = (
        say(
            "report.code_signal", lang, stance=named("stance.", code.stance, lang), score=f"{code.score:+.2f}"
        )
        if code is not None
        else fmt.DASH
    )
    text = in_language(view, "text", lang) if view is not None else ""
    return ExpertRow(
        name=name,
        title=_title(name, lang),
        status="ok",
        reused=reused,
        stance=named("stance.", stances.get(name) or (view.stance if view else None), lang),
        stance_key=fmt.text(stances.get(name) or (view.stance if view else None)),
        signal=named("signal_word.", view.signal if view else None, lang),
        confidence=fmt.confidence(view.confidence if view else None),
        code_signal=code_signal,
        code_reasons=list(in_language(code, "reasons", lang)) if code is not None else [],
        key_numbers=numbers,
        reasoning=fmt.text(text) if text else "",
        reasoning_by_code=view is not None and bool(view.i18n.get(lang, {}).get("text")),
        risks=list(view.risks) if view else [],
        grounding=grounding,
        flags=flags,
        guard_summary=guard_summary(flags, lang),
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
                ExpertRow(name=name, title=_title(name, lang), status="failed", reused=reused, error=error)
            )
        elif name in session.expert_results:
            result = _dict(session.expert_results[name])
            view = views.get(name)
            numbers = _key_numbers(view, lang, currency_of(session.symbol))
            row = _expert_row(name, result, view, stances, reused, numbers, lang)
            rows.append(replace(row, stance=say("report.expert.no_data", lang)) if name in without else row)
        else:
            missing = say("report.expert.no_result", lang)  # code's words, unlike a failed expert's error
            rows.append(ExpertRow(name=name, title=_title(name, lang), status="missing", error=missing))
    return rows


def agreement(session: ResearchSession, lang: str = "en") -> Agreement:
    aggregation = _dict(session.aggregation)
    counts = _dict(aggregation.get("stance_counts"))
    succeeded = _list(aggregation.get("experts_succeeded")) or list(session.expert_results)
    failed = _list(aggregation.get("experts_failed")) or list(session.expert_errors)
    return Agreement(
        majority=named("stance.", aggregation.get("majority_stance"), lang),
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
def _panel(artifact: Mapping[str, Any], lang: str) -> Panel:
    rounds = []
    for index, item in enumerate(_list(artifact.get("rounds")), start=1):
        round_ = _dict(item)
        roles = [r for r in PANEL_ROLES if r in round_]
        roles += [r for r, v in round_.items() if r not in PANEL_ROLES and isinstance(v, Mapping)]
        cells = []
        for role in roles:
            said = _dict(round_.get(role))
            cells.append(
                PanelCell(
                    role=named("panel.role.", role, lang),
                    action=named("action.", said.get("action"), lang),
                    confidence=fmt.confidence(said.get("confidence")),
                    sources=len(_list(said.get("sources"))),
                    text=fmt.text(said.get("text")),
                )
            )
        rounds.append(PanelRound(number=fmt.text(round_.get("round", index)), cells=cells))
    conclusion = _dict(artifact.get("conclusion"))
    return Panel(
        rounds=rounds,
        conclusion_action=named("action.", conclusion.get("action"), lang),
        conclusion_confidence=fmt.confidence(conclusion.get("confidence")),
        conclusion_text=fmt.text(conclusion.get("text")),
    )


def _why_no_debate(session: ResearchSession) -> tuple[str, str]:
    """(why, as a `report.no_debate.*` key; the stored error it quotes, if any)."""
    if session.errors.get("debate"):
        return "failed", fmt.text(session.errors["debate"])
    insufficient = _dict(session.verdict).get("evidence") == "insufficient"
    if insufficient and not session.llm_settings.get("rules_only"):
        return "insufficient", ""
    if session.skip_debate:
        return "skipped", ""
    if session.status in ("cancelled", "interrupted"):
        return str(session.status), ""
    if not session.expert_results:
        return "all_failed", ""
    return "none", ""


def debate(session: ResearchSession, lang: str = "en") -> Debate:
    outcome = _dict(session.debate_outcome)
    if not outcome:
        key, detail = _why_no_debate(session)
        return Debate(
            present=False, missing_reason=say(f"report.no_debate.{key}", lang), missing_detail=detail
        )
    bull, bear = _dict(outcome.get("bull_case")), _dict(outcome.get("bear_case"))
    risks = [_dict(r) for r in _list(outcome.get("risk_matrix"))]
    artifact = _dict(outcome.get("artifact"))
    return Debate(
        present=True,
        mode=fmt.text(outcome.get("mode") or session.debate_mode),
        direction=named("signal_word.", outcome.get("direction"), lang),
        confidence=fmt.confidence(outcome.get("confidence")),
        experts_considered=(
            [fmt.label(e) for e in _texts(outcome.get("experts_considered"))]
            if lang == "en"
            else _names("analyze.expert.", _texts(outcome.get("experts_considered")), lang)
        ),
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
                probability=named("level.", r.get("probability"), lang),
                impact=named("level.", r.get("impact"), lang),
                mitigation=fmt.text(r.get("mitigation")),
            )
            for r in risks
        ],
        panel=_panel(artifact, lang) if artifact else None,
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
def footer(session: ResearchSession, lang: str = "en") -> Footer:
    return Footer(
        session_id=session.id,
        parent_session_id=session.parent_session_id or fmt.DASH,
        status=str(session.status),
        started_at=session.started_at.isoformat(sep=" ", timespec="seconds"),
        finished_at=(
            session.finished_at.isoformat(sep=" ", timespec="seconds") if session.finished_at else fmt.DASH
        ),
        duration=fmt.seconds(session.duration_seconds, lang),
        llm_calls=fmt.count(session.llm_calls),
        tokens=fmt.count(session.tokens),
        debate_mode=str(session.debate_mode),
        nodes=[
            NodeRow(
                node=n.node,
                status=str(n.status),
                seconds=fmt.seconds(n.seconds, lang),
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
        as_of=session.as_of.isoformat() if session.as_of else say("report.latest", lang),
        status=str(session.status),
        verdict=verdict_card(session, lang),
        experts=expert_rows(session, lang),
        agreement=agreement(session, lang),
        debate=debate(session, lang),
        errors=[Pair(k, fmt.text(v)) for k, v in session.errors.items()],
        footer=footer(session, lang),
        charts=chart_views(session, lang),
        as_of_clamped=bool(_dict(session.aggregation).get("as_of_clamped")),
        position=position_card(_dict(session.verdict), lang, currency_of(session.symbol)),
    )
