"""The analysis report as Word (.docx): the Markdown report's sections, in the same order and words,
with the charts as pictures.

It reads the same ReportView the HTML and Markdown templates print (reports.view) and words every
heading and label with the same catalogue (ReportWords), so the three never say different things;
the charts are the PNGs the Markdown report links (shared/charts, the English drawing), each with
its title and caption in the report's language.
"""

from __future__ import annotations

import logging

from stockdesk.coordinator.application import ResearchSession
from stockdesk.coordinator.presentation.reports.view import build_view
from stockdesk.coordinator.presentation.reports.view_model import (
    Debate,
    ExpertRow,
    PositionCard,
    ReportView,
    VerdictCard,
)
from stockdesk.coordinator.presentation.reports.words import ReportWords, report_language
from stockdesk.shared import charts as shared_charts  # its renderers load matplotlib on first call only
from stockdesk.shared.exports.word import WordDocument

logger = logging.getLogger(__name__)


def render_docx(session: ResearchSession, *, track_record: str | None = None, lang: str = "en") -> bytes:
    """The report as .docx bytes, all of it in `lang` but what the models and the user wrote."""
    lang = report_language(lang)
    report, t = build_view(session, lang), ReportWords(lang)
    doc = WordDocument(lang, title=t("report.doc.md_heading", symbol=report.symbol, as_of=report.as_of))
    doc.title(t("report.doc.md_heading", symbol=report.symbol, as_of=report.as_of))
    if report.as_of_clamped:
        doc.paragraph(t("report.doc.md_clamped"))
    f = report.footer
    doc.paragraph(
        f"{t('report.doc.status_md')} ",
        (t.word("state.", report.status), "b"),
        f" · {f.llm_calls} {t('report.doc.llm_calls')} · {f.tokens} {t('report.doc.tokens')} · {f.duration}"
        f" · {t('report.doc.session_word')} {f.session_id}",
    )
    _verdict(doc, report.verdict, t, track_record)
    if report.position is not None:
        _position(doc, report.position, t)
    _experts(doc, report, t)
    _charts(doc, report, t)
    _debate(doc, report.debate, t)
    _risks(doc, report.debate, t)
    _session(doc, report, t)
    return doc.to_bytes()


def _verdict(doc: WordDocument, v: VerdictCard, t: ReportWords, track_record: str | None) -> None:
    doc.heading(t("report.doc.verdict"))
    if not v.present:
        missing = f" {v.missing_reason} {v.missing_detail}".rstrip()
        doc.paragraph((t("report.doc.no_verdict_md"), "b"), missing)
    else:
        rules = f" · {t('report.doc.rules_source')}" if v.source == "rules" else ""
        doc.paragraph(
            (t.word("action.", v.action), "b"),
            f" · {t('report.doc.position')} {v.position}",
            f" · {t('report.doc.confidence')} {v.confidence}{rules}",
        )
        if v.insufficient:
            doc.paragraph((v.insufficient, "b"))
        if v.probability:
            doc.paragraph(" · ".join(x for x in (v.probability, v.calibration, v.signal_model) if x))
        if v.lessons:
            doc.paragraph(t("report.doc.md_lessons"))
            doc.bullets(v.lessons)
        if v.support:
            stability = f" · {v.stability}" if v.stability else ""
            doc.paragraph(f"{t('report.doc.evidence')}: {v.support}{stability}")
        doc.pairs(
            [
                (t("report.doc.action_label"), t.word("action.", v.action)),
                (t("report.doc.position_label"), v.position),
                (t("report.doc.confidence_label"), v.confidence),
                (t("report.doc.entry_label"), v.entry_strategy),
                (t("report.doc.stop_label"), v.stop_loss),
                (t("report.doc.target_label"), v.take_profit),
                (t("report.doc.time_horizon_label"), v.time_horizon),
            ]
        )
        _plan_and_reasons(doc, v, t)
    if track_record:
        doc.paragraph(f"{t('report.doc.track_record')}: {track_record}")


def _position(doc: WordDocument, p: PositionCard, t: ReportWords) -> None:
    """ "Your position": the holding, the holder's action and its plan in lots."""
    doc.heading(t("holder.report.heading"))
    doc.paragraph((t("holder.report.note"), "i"))
    doc.paragraph((t("holder.report.action", action=t.word("action.", p.action)), "b"), f" · {p.reason}")
    doc.pairs([(r.name, r.value) for r in p.position])
    doc.heading(t("holder.report.plan"), 3)
    doc.pairs([(r.name, r.value) for r in p.plan])


def _plan_and_reasons(doc: WordDocument, v: VerdictCard, t: ReportWords) -> None:
    """The trade plan computed by code, then the reasoning and what code changed or dropped."""
    if v.plan:
        doc.heading(t("report.doc.plan"), 3)
        doc.paragraph((t("report.doc.plan_note"), "i"))
        doc.pairs([(p.name, p.value) for p in v.plan])
        doc.bullets(v.plan_rules)
    doc.paragraph(v.reasoning)
    for key, lines in (("report.doc.adjustments", v.adjustments), ("report.doc.dropped", v.dropped)):
        if lines:
            doc.paragraph(f"{t(key)}:")
            doc.bullets(lines)
    if v.rules_verdict:
        doc.paragraph(f"{t('report.doc.rules_beside')}: {v.rules_verdict}")
    if v.risk_warnings:
        doc.paragraph(f"{t('report.doc.risk_warnings')}:")
        doc.bullets(v.risk_warnings)


def _experts(doc: WordDocument, report: ReportView, t: ReportWords) -> None:
    a = report.agreement
    doc.heading(t("report.doc.experts"))
    without = f" · {t('report.doc.without_data')}: {t.experts(a.without_data)}" if a.without_data else ""
    doc.paragraph(
        f"{t('report.doc.majority')} ",
        (a.majority, "b"),
        f" ({a.ratio} {t('report.doc.agree')}) · {t('report.doc.mean_confidence')} {a.mean_confidence} · "
        f"{t('report.doc.bullish')} {a.bullish} / {t('report.doc.neutral')} {a.neutral} / "
        f"{t('report.doc.bearish')} {a.bearish} · {a.succeeded} {t('report.doc.succeeded')}, "
        f"{a.failed} {t('report.doc.failed')}{without}",
    )
    header = ["expert", "stance", "signal", "confidence_label", "code_signal", "guards"]
    rows = []
    for e in report.experts:
        if e.status == "ok":
            title = e.title + (f" ({t('report.doc.reused')})" if e.reused else "")
            rows.append([title, e.stance, e.signal, e.confidence, e.code_signal, e.guard_summary])
        else:
            rows.append([e.title, t(f"report.status.{e.status}").upper(), "", "", "", e.error])
    doc.table([t(f"report.doc.{key}") for key in header], rows)
    for e in report.experts:
        _expert_card(doc, e, t)


def _expert_card(doc: WordDocument, e: ExpertRow, t: ReportWords) -> None:
    """One expert: its signal, its figures with their labels and units, its reasoning and guards."""
    doc.heading(e.title + (f" ({t('report.doc.reused_from_parent')})" if e.reused else ""), 2)
    if e.status != "ok":
        doc.paragraph((f"{t(f'report.status.{e.status}').upper()}: ", "b"), e.error)
        return
    doc.paragraph((e.signal, "b"), f" ({e.stance}) · {t('report.doc.confidence')} {e.confidence}")
    if e.key_numbers:
        doc.paragraph((t("report.doc.key_numbers"), "b"))
        doc.pairs([(p.name, p.value) for p in e.key_numbers])
    if e.reasoning:
        doc.paragraph(e.reasoning)
    if e.risks:
        doc.paragraph(f"{t('report.doc.risks')}:")
        doc.bullets(e.risks)
    flags = "" if e.flags else f"; {t('report.doc.no_flags')}"
    doc.paragraph(f"{t('report.doc.guards')}: {e.grounding or t('report.doc.no_guards')}{flags}")
    doc.bullets([("⚠ " if flag.level == "warn" else "ℹ ") + flag.whole for flag in e.flags])


def _charts(doc: WordDocument, report: ReportView, t: ReportWords) -> None:
    """Each stored chart as a picture (the English drawing, as in the Markdown report's files), its
    title and caption in the report's language; one that cannot be drawn is said, not skipped."""
    doc.heading(t("report.doc.charts"))
    if not report.charts:
        doc.paragraph(t("report.doc.no_charts"))
    for chart in report.charts:
        doc.heading(chart.title, 3)
        drawing = chart.drawn
        if drawing is None:
            doc.paragraph(chart.problem)
            continue
        try:
            doc.picture(shared_charts.render_png(drawing), chart.caption)
        except Exception as exc:  # a report always renders: say what failed instead
            logger.warning("chart %s could not be drawn", chart.id, exc_info=True)
            doc.paragraph((t("report.chart.not_drawn"), "b"), f" {type(exc).__name__}: {exc}")


def _debate(doc: WordDocument, d: Debate, t: ReportWords) -> None:
    doc.heading(t("report.doc.debate"))
    if not d.present:
        doc.paragraph((t("report.doc.no_debate"), "b"), f" {d.missing_reason} {d.missing_detail}".rstrip())
        return
    considered = (
        f" · {t('report.doc.considered')}: {t('list.separator').join(d.experts_considered)}"
        if d.experts_considered
        else ""
    )
    doc.paragraph(
        f"{t('report.doc.mode')} ",
        (t.word("analyze.debate.", d.mode), "b"),
        f" · {t('report.doc.direction')} ",
        (d.direction, "b"),
        f" · {t('report.doc.confidence')} {d.confidence}{considered}",
    )
    sides = (
        ("report.doc.bull", d.bull_thesis, d.bull_arguments, "report.doc.bull_risks", d.bull_risks),
        ("report.doc.bear", d.bear_thesis, d.bear_arguments, "report.doc.bear_strengths", d.bear_strengths),
    )
    for heading, thesis, arguments, extra_key, extra in sides:
        doc.heading(t(heading), 2)
        doc.paragraph(thesis)
        doc.bullets(arguments)
        if extra:
            doc.paragraph(t(extra_key))
            doc.bullets(extra)
    _resolution(doc, d, t)


def _resolution(doc: WordDocument, d: Debate, t: ReportWords) -> None:
    """The judge of the debate: its resolution, the disagreements, and the panel's rounds if any."""
    doc.heading(t("report.doc.resolution"), 2)
    doc.paragraph(d.resolution)
    if d.disagreements:
        doc.paragraph(f"{t('report.doc.disagreements')}:")
        doc.bullets(d.disagreements)
    if d.english:
        doc.paragraph(t("report.doc.choices_english"))
        doc.bullets(d.english)
    if d.panel:
        doc.heading(t("report.doc.panel"), 2)
        header = ["round", "panelist", "action_label", "confidence_label", "sources", "argument"]
        rows = [
            [r.number, c.role, c.action, c.confidence, str(c.sources), c.text]
            for r in d.panel.rounds
            for c in r.cells
        ]
        doc.table([t(f"report.doc.{key}") for key in header], rows)
        doc.paragraph(
            f"{t('report.doc.conclusion')}: ",
            (d.panel.conclusion_action, "b"),
            f" · {t('report.doc.confidence')} {d.panel.conclusion_confidence} · {d.panel.conclusion_text}",
        )
    if d.dropped_sources:
        doc.paragraph(t("report.doc.dropped_sources", n=d.dropped_sources))


def _risks(doc: WordDocument, d: Debate, t: ReportWords) -> None:
    doc.heading(t("report.doc.risks"))
    if d.risk_matrix:
        header = [t(f"report.doc.{key}") for key in ("risk", "probability", "impact", "mitigation")]
        doc.table(header, [[r.risk, r.probability, r.impact, r.mitigation] for r in d.risk_matrix])
    else:
        doc.paragraph(t("report.doc.no_matrix_choices" if d.english else "report.doc.no_matrix"))


def _session(doc: WordDocument, report: ReportView, t: ReportWords) -> None:
    """What went wrong, if anything, and the run's own record: ids, times, calls, each node."""
    if report.errors:
        doc.heading(t("report.doc.errors"))
        doc.bullets([f"{t.word('report.error.', p.name)}: {p.value}" for p in report.errors])
    f = report.footer
    doc.heading(t("report.doc.session"))
    doc.pairs(
        [
            (t("report.doc.session"), f.session_id),
            (t("report.doc.parent"), f.parent_session_id),
            (t("report.doc.status_label"), t.word("state.", f.status)),
            (t("report.doc.debate_mode"), t.word("analyze.debate.", f.debate_mode)),
            (t("report.doc.started"), f.started_at),
            (t("report.doc.finished"), f.finished_at),
            (t("report.doc.duration"), f.duration),
            (t("report.doc.llm_calls_label"), f.llm_calls),
            (t("report.doc.tokens_label"), f.tokens),
        ]
    )
    if f.nodes:
        header = [t(f"report.doc.{key}") for key in ("node", "status_label", "time", "error")]
        rows = [
            [t.word("analyze.node.", n.node), t.word("state.", n.status), n.seconds, n.error] for n in f.nodes
        ]
        doc.table(header, rows)
