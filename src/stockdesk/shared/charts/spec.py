"""ChartSpec: a chart as data (series computed in code), drawn by matplotlib here and by ECharts in the UI.

Framework-neutral and JSON-safe: x values are ISO dates or category labels, gaps are None (never
NaN, which JSON cannot carry), styles are names the renderers map to their own colours and dashes.
What is named in a panel's right margin, and in which words, is part of the spec too
(`ChartSpec.edge_labels`, derived, never given): both renderers print the same labels, placed by the
one rule in `labels.py`.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field, computed_field, field_validator, model_validator

SeriesKind = Literal["line", "bar", "scatter", "area"]
LineStyle = Literal["entry", "stop", "target", "median", "zero", "reference"]
XKind = Literal["date", "category"]
EdgeKind = Literal["line", "point"]


def _clean(values: list[float | None]) -> list[float | None]:
    """NaN and infinities become gaps: a spec must survive a JSON round trip unchanged."""
    return [None if v is None or not math.isfinite(v) else float(v) for v in values]


class ChartSeries(BaseModel):
    name: str = Field(min_length=1, description="legend entry")
    values: list[float | None] = Field(description="one per x value; None is a gap")
    kind: SeriesKind = "line"
    secondary: bool = Field(default=False, description="drawn against the panel's right-hand axis")
    stack: str | None = Field(default=None, description="bar series with the same key share one slot")
    color: str | None = Field(default=None, description="#rrggbb; the renderer picks one when None")
    width: float | None = Field(
        default=None, gt=0, le=6, description="line width; None = the renderer's default"
    )

    @field_validator("values")
    @classmethod
    def _gaps(cls, values: list[float | None]) -> list[float | None]:
        return _clean(values)


class ReferenceLine(BaseModel):
    """A horizontal level across the panel (a trade plan's entry/stop/target, a median, zero)."""

    label: str
    value: float = Field(allow_inf_nan=False)
    style: LineStyle = "reference"


class Band(BaseModel):
    """A shaded range between two per-x boundaries (e.g. the 10th-90th percentile of a window)."""

    label: str
    lower: list[float | None]
    upper: list[float | None]
    color: str | None = None

    @field_validator("lower", "upper")
    @classmethod
    def _gaps(cls, values: list[float | None]) -> list[float | None]:
        return _clean(values)


class Point(BaseModel):
    """One highlighted value, e.g. today's PE on its history; `label` is printed beside it."""

    label: str
    x: str = Field(description="one of the chart's x values")
    y: float = Field(allow_inf_nan=False)


class Region(BaseModel):
    """A shaded span of x values, e.g. a backtest's in-sample, validation and holdout periods."""

    label: str = Field(default="", description="printed at the top of the span; empty: shaded only")
    start: str = Field(description="first x value of the span")
    end: str = Field(description="last x value of the span (may equal start)")
    color: str | None = None


class EdgeLabel(BaseModel):
    """A label in a panel's right margin, level with the value it names (see labels.py for where exactly)."""

    kind: EdgeKind = Field(description="what it names: one of the panel's lines or one of its points")
    index: int = Field(ge=0, description="position of that line or point in the panel's list")
    text: str = Field(min_length=1)
    y: float = Field(allow_inf_nan=False, description="the value the label is level with")


def panel_edge_labels(panel: ChartPanel, last_x: str | None) -> list[EdgeLabel]:
    """Every reference level but the zero lines (name and value), then every point on the last x (its
    label): what a reader looks up at the right edge. Points elsewhere keep their label beside them."""
    labels = [
        EdgeLabel(kind="line", index=n, text=f"{line.label} {line.value:,.2f}", y=line.value)
        for n, line in enumerate(panel.lines)
        if line.style != "zero"
    ]
    labels += [
        EdgeLabel(kind="point", index=n, text=point.label, y=point.y)
        for n, point in enumerate(panel.points)
        if point.x == last_x and point.label.strip()
    ]
    return labels


class ChartPanel(BaseModel):
    """One plot area; panels of a chart share the x axis and are stacked top to bottom."""

    y_label: str = ""
    y2_label: str = Field(default="", description="label of the right-hand axis, when a series uses it")
    series: list[ChartSeries] = Field(default_factory=list)
    lines: list[ReferenceLine] = Field(default_factory=list)
    bands: list[Band] = Field(default_factory=list)
    points: list[Point] = Field(default_factory=list)
    regions: list[Region] = Field(default_factory=list)
    height: float = Field(default=1.0, gt=0, description="relative height among the chart's panels")
    y_min: float | None = None
    y_max: float | None = None


class ChartSpec(BaseModel):
    id: str = Field(pattern=r"^[a-z0-9_-]+$", description="stable name; also the image file name")
    title: str
    caption: str = Field(description="one line: what to read from the chart")
    x: list[str] = Field(description="ISO dates (x_kind date) or labels (x_kind category)")
    x_kind: XKind = "date"
    panels: list[ChartPanel] = Field(min_length=1)
    i18n: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="language -> {each text of this spec as written (English) -> the same in that "
        "language}: a page shows `spec_in_language(spec, lang)`; image files draw the English",
    )

    @computed_field(description="per panel, the labels of its right margin (derived from lines and points)")
    @property
    def edge_labels(self) -> list[list[EdgeLabel]]:
        """Derived, so a stored spec read back gets them recomputed, and a spec made before they
        existed gets them too; a renderer that finds none draws no margin labels."""
        last = self.x[-1] if self.x else None
        return [panel_edge_labels(panel, last) for panel in self.panels]

    @field_validator("caption")
    @classmethod
    def _one_line(cls, caption: str) -> str:
        return " ".join(caption.split())

    @model_validator(mode="after")
    def _aligned(self) -> ChartSpec:
        """Every per-x list has one value per x, every point sits on an x value."""
        n, known = len(self.x), set(self.x)
        for panel in self.panels:
            for series in panel.series:
                if len(series.values) != n:
                    raise ValueError(f"series {series.name!r} has {len(series.values)} values for {n} x")
            for band in panel.bands:
                if len(band.lower) != n or len(band.upper) != n:
                    raise ValueError(f"band {band.label!r} does not have {n} lower and upper values")
            for point in panel.points:
                if point.x not in known:
                    raise ValueError(f"point {point.label!r} at {point.x!r} is not an x value")
            for region in panel.regions:
                if region.start not in known or region.end not in known:
                    raise ValueError(f"region {region.label!r} does not start and end on x values")
                if self.x.index(region.start) > self.x.index(region.end):
                    raise ValueError(f"region {region.label!r} ends before it starts")
        return self
