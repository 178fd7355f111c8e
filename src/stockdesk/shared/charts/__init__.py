"""Charts as data (ChartSpec) and their SVG/PNG rendering; the shared kernel, no context imported.

`render_svg` / `render_png` load matplotlib on first use only: code that just builds specs (the
application layers) does not pay for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stockdesk.shared.charts.spec import (
    Band,
    ChartPanel,
    ChartSeries,
    ChartSpec,
    LineStyle,
    Point,
    ReferenceLine,
    Region,
    SeriesKind,
)
from stockdesk.shared.charts.words import ChartWords, spec_in_language

if TYPE_CHECKING:
    from stockdesk.shared.charts.render import render_inline_svg, render_png, render_svg

__all__ = [
    "Band",
    "ChartPanel",
    "ChartSeries",
    "ChartSpec",
    "ChartWords",
    "LineStyle",
    "Point",
    "ReferenceLine",
    "Region",
    "SeriesKind",
    "render_inline_svg",
    "render_png",
    "render_svg",
    "spec_in_language",
]


def __getattr__(name: str) -> Any:
    if name in ("render_inline_svg", "render_png", "render_svg"):
        from stockdesk.shared.charts import render

        return getattr(render, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
