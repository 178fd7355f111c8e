"""`paper show --out`: the book as JSON (the contract), HTML (figures, the equity chart, positions
and trades) or PDF (the HTML printed, by suffix: `shared/exports`)."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from stockdesk.paper.application import BookFigures, BookView
from stockdesk.paper.application.charts import equity_chart
from stockdesk.shared import charts as shared_charts  # its renderers load matplotlib on first call only
from stockdesk.shared.exports import output_format, ready_format, write_document
from stockdesk.shared.files import write_atomic

FORMATS = {".json": "json"}  # and .html / .pdf, as every HTML report


def figure_lines(figures: BookFigures | None) -> list[str]:
    """The equity curve's figures, labelled with units, a line each."""
    if figures is None:
        return ["no day stepped yet"]
    m, b = figures.metrics, figures.benchmark
    return [
        f"start equity: {figures.start_equity:,.2f}",
        f"end equity: {figures.end_equity:,.2f}",
        f"total return: {m.total_return * 100:.2f} %",
        f"annualised return: {m.annual_return * 100:.2f} %",
        f"volatility (annualised): {m.volatility * 100:.2f} %",
        f"max drawdown: {m.max_drawdown * 100:.2f} %",
        f"Sharpe ratio: {m.sharpe:.2f}",
        f"benchmark return: {b.total_return * 100:.2f} %" if b else "benchmark return: n/a",
        f"trades: {figures.trades} filled, {figures.not_filled} not filled",
        f"days: {m.days}",
    ]


def check_out(path: Path) -> str:
    """The format `path` asks for (and the browser a PDF needs), checked before any work."""
    return ready_format(path, FORMATS)


def render_book_html(view: BookView) -> str:
    env = Environment(
        loader=PackageLoader("stockdesk.paper.presentation", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        undefined=StrictUndefined,
    )
    spec = equity_chart(view.book, view.marks)
    chart = (
        None
        if spec is None
        else {
            "title": spec.title,
            "caption": spec.caption,
            "svg": Markup(shared_charts.render_inline_svg(spec)),
        }
    )
    return env.get_template("book.html.j2").render(v=view, chart=chart, lines=figure_lines(view.figures))


def write_book(view: BookView, out: Path) -> Path:
    if output_format(out, FORMATS) == "json":
        return write_atomic(out, view.model_dump_json(indent=2))
    return write_document(render_book_html(view), out)
