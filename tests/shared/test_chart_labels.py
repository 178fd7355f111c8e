"""labels.py's rule on its own: `spread` keeps labels apart and inside, moving them as little as it can;
`wrap` breaks at spaces into the fewest, narrowest lines; the spec names what goes in the margin."""

from __future__ import annotations

import json
import random
from itertools import pairwise

import pytest

from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, Point, ReferenceLine
from stockdesk.shared.charts.labels import spread, wrap

DAYS = ["2024-06-26", "2024-06-27", "2024-06-28"]


def assert_apart_and_inside(
    centres: list[float], anchors: list[float], heights: list[float], low: float, high: float, gap: float
) -> None:
    order = sorted(range(len(anchors)), key=lambda i: (anchors[i], i))
    assert [centres[i] for i in order] == sorted(centres)  # labels keep the order of their values
    for a, b in pairwise(order):
        assert centres[b] - centres[a] >= (heights[a] + heights[b]) / 2 + gap - 1e-9
    if sum(heights) + gap * (len(heights) - 1) <= high - low:
        assert all(
            low - 1e-9 <= c - h / 2 and c + h / 2 <= high + 1e-9
            for c, h in zip(centres, heights, strict=True)
        )


def test_labels_that_do_not_touch_stay_level_with_their_values() -> None:
    assert spread([10.0, 50.0, 90.0], [14.0] * 3, 0.0, 200.0, 3.0) == [10.0, 50.0, 90.0]


def test_two_labels_on_one_value_straddle_it() -> None:
    """The valuation chart's median and today's value when they are equal: one above, one below."""
    centres = spread([100.0, 100.0], [14.0, 28.0], 0.0, 200.0, 3.0)
    assert centres[1] - centres[0] == pytest.approx(14 / 2 + 28 / 2 + 3)
    assert (centres[0] + centres[1]) / 2 == pytest.approx(100.0)  # the block centred on what it names


def test_labels_at_the_edge_are_pushed_inside_and_a_crowd_starts_at_the_low_end() -> None:
    assert spread([0.0, 1.0], [10.0, 10.0], 0.0, 100.0, 2.0) == [5.0, 17.0]
    assert spread([99.0, 100.0], [10.0, 10.0], 0.0, 100.0, 2.0) == [83.0, 95.0]
    assert spread([50.0] * 5, [30.0] * 5, 0.0, 100.0, 2.0)[0] == 15.0  # no room: stacked from `low`


def test_random_crowds_end_apart_and_inside() -> None:
    rng = random.Random(11)
    for _ in range(300):
        n = rng.randint(1, 7)
        anchors = [rng.uniform(-20, 220) for _ in range(n)]
        heights = [rng.choice([14.0, 28.0, 42.0]) for _ in range(n)]
        centres = spread(anchors, heights, 0.0, 200.0, 3.0)
        assert_apart_and_inside(centres, anchors, heights, 0.0, 200.0, 3.0)


def test_wrap_takes_the_fewest_then_the_narrowest_lines() -> None:
    chars = len  # one unit per character
    assert wrap("median 10.51", 40, chars) == ["median 10.51"]
    assert wrap("2024-06-28: 30.00 (pct 100)", 24, chars) == [
        "2024-06-28:",
        "30.00 (pct 100)",
    ]  # not "...(pct", "100)"
    assert wrap("take-profit 1,332.63", 12, chars) == ["take-profit", "1,332.63"]
    assert wrap("averyveryverylongword here", 8, chars) == [
        "averyveryverylongword",
        "here",
    ]  # a word stays whole
    assert wrap("   ", 8, chars) == ["   "]


def test_the_spec_names_the_levels_and_todays_point_in_the_margin() -> None:
    spec = ChartSpec(
        id="v", title="t", caption="c", x=DAYS,
        panels=[
            ChartPanel(
                series=[ChartSeries(name="PE", values=[1.0, 2.0, 3.0])],
                lines=[
                    ReferenceLine(label="zero", value=0.0, style="zero"),
                    ReferenceLine(label="median", value=1234.5, style="median"),
                ],
                points=[Point(label="old", x=DAYS[0], y=1.0), Point(label="today 3.00", x=DAYS[-1], y=3.0)],
            ),
            ChartPanel(series=[ChartSeries(name="volume", kind="bar", values=[1.0, 2.0, 3.0])]),
        ],
    )  # fmt: skip
    assert [[(e.kind, e.index, e.text, e.y) for e in panel] for panel in spec.edge_labels] == [
        [("line", 1, "median 1,234.50", 1234.5), ("point", 1, "today 3.00", 3.0)],
        [],
    ]
    stored = json.loads(json.dumps(spec.model_dump(mode="json")))
    assert stored["edge_labels"][0][0]["text"] == "median 1,234.50"  # what charts.js reads
    assert ChartSpec.model_validate(stored) == spec
    del stored["edge_labels"]  # a spec stored before the labels existed
    assert ChartSpec.model_validate(stored).edge_labels == spec.edge_labels
