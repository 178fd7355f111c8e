"""A strategy run as one standalone HTML page: inline CSS, charts as inline SVG, no external assets;
or that page printed to PDF (shared/exports).

Autoescaped: the reasoning, the errors fed back and the rendered code come from (or through) a
language model and may hold markup; they are shown as text.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from stockdesk.shared.exports import write_document
from stockdesk.strategy_lab.domain.dtos import BacktestResult, StrategyRunDTO
from stockdesk.strategy_lab.presentation.report.report_view import build_report_view

TEMPLATE = "run_report.html.j2"


@lru_cache(maxsize=1)
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("stockdesk.strategy_lab.presentation.report", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_run_report(run: StrategyRunDTO, replay: BacktestResult | None) -> str:
    """The report of `run`; `replay` is the champion (or best iteration) re-scored over the whole
    window, for the curves, months and trades (None: the report says they are missing)."""
    return _environment().get_template(TEMPLATE).render(report=build_report_view(run, replay))


def write_run_report(run: StrategyRunDTO, replay: BacktestResult | None, path: Path) -> Path:
    """Write the report to `path`, HTML or PDF by its suffix (a temporary file, then replaced: a reader
    never sees half of it)."""
    return write_document(render_run_report(run, replay), path)
