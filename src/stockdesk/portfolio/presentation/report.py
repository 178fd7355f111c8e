"""`stockdesk portfolio --out`: the view as JSON (the contract), HTML (the figures, the allocation
and value charts as inline SVG, the names with their reasons, the trades) or PDF (the HTML printed,
by suffix: `shared/exports`)."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from stockdesk.portfolio.application import PortfolioView
from stockdesk.portfolio.application.charts import allocation_chart, value_chart
from stockdesk.portfolio.presentation.shown import shown_view
from stockdesk.shared import charts as shared_charts  # its renderers load matplotlib on first call only
from stockdesk.shared.charts import ChartSpec
from stockdesk.shared.exports import output_format, ready_format, write_document
from stockdesk.shared.files import write_atomic
from stockdesk.shared.wording import say

FORMATS = {".json": "json"}  # and .html / .pdf, as every HTML report


def check_out(path: Path) -> str:
    """The format `path` asks for (and the browser a PDF needs), checked before any work."""
    return ready_format(path, FORMATS)


def _figure(spec: ChartSpec | None, lang: str) -> dict[str, object] | None:
    """The chart drawn in English (as every report file's) with its caption in `lang`."""
    if spec is None:
        return None
    caption = spec.i18n.get(lang, {}).get(spec.caption, spec.caption)
    return {"title": spec.title, "caption": caption, "svg": Markup(shared_charts.render_inline_svg(spec))}


def render_view_html(view: PortfolioView, lang: str = "en") -> str:
    env = Environment(
        loader=PackageLoader("stockdesk.portfolio.presentation", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        undefined=StrictUndefined,
    )
    charts = [c for c in (_figure(allocation_chart(view), lang), _figure(value_chart(view), lang)) if c]

    def t(key: str, **values: object) -> str:
        return say(key, lang, **values)

    return env.get_template("portfolio.html.j2").render(s=shown_view(view, lang), charts=charts, t=t)


def write_view(view: PortfolioView, out: Path, lang: str = "en") -> Path:
    if output_format(out, FORMATS) == "json":
        return write_atomic(out, view.model_dump_json(indent=2))
    return write_document(render_view_html(view, lang), out)
