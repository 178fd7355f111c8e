"""Reading an ECharts chart's drawn text back from chromium, to check that no label collides.

ECharts draws on a canvas, so the text is read from its scene graph (zrender): every text span it
would paint (not ignored, not invisible), its box in the chart's pixels, cut to its clip rectangle
(a scrolling legend clips the entries of its other pages away). With it, the plot areas (grids) and
the margin labels charts.js placed (their wrapped lines, per panel).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Page

TOUCH = 0.5  # px: boxes that only share an edge do not overlap

READ = """id => {
  const el = document.querySelector(`[data-chart-id="${id}"]`);
  const chart = echarts.getInstanceByDom(el);
  chart.getZr().flush();
  const box = (item) => {
    const r = item.getBoundingRect().clone();
    const m = item.getComputedTransform();
    if (m) r.applyTransform(m);
    return r;
  };
  const texts = [];
  chart.getZr().storage.getDisplayList(true).forEach((item) => {
    if (item.type !== "tspan" || item.ignore || item.invisible || !item.style || !item.style.text) return;
    if (item.style.opacity === 0) return;
    const r = box(item);
    for (const clip of item.__clipPaths || []) {
      const c = box(clip);
      const x0 = Math.max(r.x, c.x), y0 = Math.max(r.y, c.y);
      const x1 = Math.min(r.x + r.width, c.x + c.width), y1 = Math.min(r.y + r.height, c.y + c.height);
      if (x1 <= x0 || y1 <= y0) return;
      r.x = x0; r.y = y0; r.width = x1 - x0; r.height = y1 - y0;
    }
    texts.push({ text: String(item.style.text), x: r.x, y: r.y, w: r.width, h: r.height });
  });
  const grids = [];
  chart.getModel().eachComponent("grid", (grid) => {
    const r = grid.coordinateSystem.getRect();
    grids.push({ x: r.x, y: r.y, w: r.width, h: r.height });
  });
  const margin = el.stockdeskLabels ? el.stockdeskLabels.state.texts : [];
  return { texts, grids, margin, width: el.clientWidth, height: el.clientHeight };
}"""


@dataclass(frozen=True)
class Drawn:
    texts: list[dict[str, Any]]
    grids: list[dict[str, float]]
    margin: list[list[str]]  # per panel, each margin label's text (lines joined by newlines)
    width: int
    height: int


def read(page: Page, chart_id: str) -> Drawn:
    return Drawn(**page.evaluate(READ, chart_id))


def overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return (
        a["x"] + a["w"] - TOUCH > b["x"]
        and b["x"] + b["w"] - TOUCH > a["x"]
        and a["y"] + a["h"] - TOUCH > b["y"]
        and b["y"] + b["h"] - TOUCH > a["y"]
    )


def describe(t: dict[str, Any]) -> str:
    return f"{t['text']!r} at x {t['x']:.0f}-{t['x'] + t['w']:.0f}, y {t['y']:.0f}-{t['y'] + t['h']:.0f}"


def collisions(drawn: Drawn) -> tuple[list[str], list[str]]:
    """The texts drawn outside the chart, and the pairs of texts drawn over each other (also what
    scripts/screenshots.py reports of every chart it sees)."""
    outside = [
        describe(t)
        for t in drawn.texts
        if t["x"] < 0 or t["y"] < 0 or t["x"] + t["w"] > drawn.width or t["y"] + t["h"] > drawn.height
    ]
    clashes = [f"{describe(a)} / {describe(b)}" for a, b in combinations(drawn.texts, 2) if overlap(a, b)]
    return outside, clashes


def assert_labels_clear(page: Page, chart_id: str) -> Drawn:
    """No two texts overlap, all lie inside the chart (axis titles included), stacked panels share one x
    scale that keeps at least half the width, and every margin label stands right of its panel's plot
    area, within the panel's height."""
    drawn = read(page, chart_id)
    where = f"{chart_id} at {drawn.width} px"
    assert len(drawn.texts) > 5, f"{where}: too few texts drawn to mean anything"
    outside, clashes = collisions(drawn)
    assert not outside, f"{where}: outside the chart: {outside}"
    assert not clashes, f"{where}: overlapping texts: {clashes}"
    first = drawn.grids[0]
    assert all(abs(g["x"] - first["x"]) < 1 and abs(g["w"] - first["w"]) < 1 for g in drawn.grids), where
    right = first["x"] + first["w"]
    assert first["w"] >= drawn.width / 2, f"{where}: the margins leave the plot {first['w']:.0f} px"
    wanted = [Counter(line for label in labels for line in label.split("\n")) for labels in drawn.margin]
    found: list[Counter[str]] = [Counter() for _ in drawn.grids]
    for t in drawn.texts:
        if not any(t["text"] in lines for lines in wanted):
            continue
        assert t["x"] >= right + 4, f"{where}: {describe(t)} reaches into the plot area"
        inside = [
            p
            for p, g in enumerate(drawn.grids)
            if g["y"] - TOUCH <= t["y"] and t["y"] + t["h"] <= g["y"] + g["h"] + TOUCH
        ]
        assert inside, f"{where}: {describe(t)} is beside no panel"
        found[inside[0]][t["text"]] += 1
    for panel, lines in enumerate(wanted):  # each margin label beside its own panel, none missing
        assert found[panel] == lines, f"{where}: panel {panel} has margin labels {found[panel]}, not {lines}"
    return drawn


def wait_placed(page: Page, count: int) -> None:
    """Until `count` charts stand with their labels where charts.js's rule puts them."""
    page.wait_for_function(
        "n => document.querySelectorAll('[data-spec][data-labels=\"placed\"]').length === n", arg=count
    )
