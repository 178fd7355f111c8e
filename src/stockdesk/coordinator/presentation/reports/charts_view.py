"""The session's stored charts as the report templates show them: title, caption and the drawing.

The drawing is made only when a template asks for it (inline SVG for HTML; Markdown links PNG files
that render.write_report writes beside the report; Word embeds the same PNGs). Drawings are of the
English spec (files draw ASCII text only, shared/charts/render.py); the title and caption beside
them are in the report's language. A stored chart that no longer reads as a
ChartSpec, or fails to draw, becomes a one-line note: a report always renders.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from markupsafe import Markup, escape
from pydantic import ValidationError

from stockdesk.coordinator.application import ResearchSession
from stockdesk.shared import charts as shared_charts  # its renderers load matplotlib on first call only
from stockdesk.shared.charts import ChartSpec, spec_in_language
from stockdesk.shared.wording import say

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChartView:
    id: str
    title: str
    caption: str
    spec: ChartSpec | None = None  # in the report's language (a page's ECharts draws it)
    problem: str = ""
    lang: str = "en"
    drawing: ChartSpec | None = None  # the English spec, which the files draw

    @property
    def drawn(self) -> ChartSpec | None:
        """What a file draws: the English spec (the localised one for views built without it)."""
        return self.drawing or self.spec

    @property
    def file(self) -> str:
        """The PNG's file name in the report's `<stem>_files` folder."""
        return f"{self.id}.png"

    @property
    def svg(self) -> Markup:
        """The chart as an inline <svg> element, scaled to the page width."""
        if self.drawn is None:
            return Markup("")
        try:
            return Markup(shared_charts.render_inline_svg(self.drawn))
        except Exception as exc:  # a report always renders: say what failed instead
            logger.warning("chart %s could not be drawn", self.id, exc_info=True)
            return Markup('<p><b>{}</b> <span translate="no">{}</span></p>').format(
                say("report.chart.not_drawn", self.lang), escape(f"{type(exc).__name__}: {exc}")
            )


def chart_views(session: ResearchSession, lang: str = "en") -> list[ChartView]:
    """One view per stored chart, in the stored order, its texts in `lang` where the chart's table
    has them (`shared.charts.spec_in_language`); old sessions have none."""
    views = []
    for index, raw in enumerate(session.charts):
        try:
            drawing = ChartSpec.model_validate(raw)
            spec = ChartSpec.model_validate(spec_in_language(raw, lang)) if lang != "en" else drawing
        except ValidationError as exc:
            name = str(raw.get("id") or f"chart{index + 1}") if isinstance(raw, dict) else f"chart{index + 1}"
            problem = say("report.chart.unreadable", lang, n=exc.error_count())
            views.append(ChartView(id=name, title=name, caption="", problem=problem, lang=lang))
            continue
        views.append(
            ChartView(
                id=spec.id, title=spec.title, caption=spec.caption, spec=spec, lang=lang, drawing=drawing
            )
        )
    return views
