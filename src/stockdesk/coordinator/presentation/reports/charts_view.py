"""The session's stored charts as the report templates show them: title, caption and the drawing.

The drawing is made only when a template asks for it (inline SVG for HTML; Markdown links PNG files
that render.write_report writes beside the report). A stored chart that no longer reads as a
ChartSpec, or fails to draw, becomes a one-line note: a report always renders.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from markupsafe import Markup, escape
from pydantic import ValidationError

from stockdesk.coordinator.application import ResearchSession
from stockdesk.shared.charts import ChartSpec, render_inline_svg

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChartView:
    id: str
    title: str
    caption: str
    spec: ChartSpec | None = None
    problem: str = ""

    @property
    def file(self) -> str:
        """The PNG's file name in the report's `<stem>_files` folder."""
        return f"{self.id}.png"

    @property
    def svg(self) -> Markup:
        """The chart as an inline <svg> element, scaled to the page width."""
        if self.spec is None:
            return Markup("")
        try:
            return Markup(render_inline_svg(self.spec))
        except Exception as exc:  # a report always renders: say what failed instead
            logger.warning("chart %s could not be drawn", self.id, exc_info=True)
            return Markup("<p><b>Chart not drawn:</b> {}</p>").format(escape(f"{type(exc).__name__}: {exc}"))


def chart_views(session: ResearchSession) -> list[ChartView]:
    """One view per stored chart, in the stored order; old sessions have none."""
    views = []
    for index, raw in enumerate(session.charts):
        try:
            spec = ChartSpec.model_validate(raw)
        except ValidationError as exc:
            name = str(raw.get("id") or f"chart{index + 1}") if isinstance(raw, dict) else f"chart{index + 1}"
            problem = f"the stored chart could not be read ({exc.error_count()} problem(s))"
            views.append(ChartView(id=name, title=name, caption="", problem=problem))
            continue
        views.append(ChartView(id=spec.id, title=spec.title, caption=spec.caption, spec=spec))
    return views
