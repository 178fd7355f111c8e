"""The strategy run report (`stockdesk strategy show RUN --out run.html`) of a hand-built run and replay.

The run and the replayed curve are constructed as DTOs (tests/strategy_lab/report_support.py): no
LLM, no sandbox, no market data. Expected figures are the support module's hand-set values or
arithmetic written next to the assertion.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pydantic import ValidationError

from stockdesk.backtest.application import CostModel
from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec, Region, render_svg
from stockdesk.shared.exports import chromium_path
from stockdesk.strategy_lab.application.charts import (
    equity_chart,
    monthly_returns,
    split_regions,
    turnover_chart,
)
from stockdesk.strategy_lab.domain.dtos import Fold, OverfittingFigures, RunStatus, RunSummary, SplitPlan
from stockdesk.strategy_lab.presentation.report import render_run_report, write_run_report
from tests.strategy_lab.report_support import DAYS, HOSTILE, PLAN, SUMMARY, period, replay, run

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def page() -> str:
    return render_run_report(run(), replay())


def section(html: str, element_id: str, end: str = "</section>") -> str:
    """The HTML from the element with `element_id` to the next `end` tag."""
    start = html.index(f'id="{element_id}"')
    return html[start : html.index(end, start)]


def table(html: str, element_id: str) -> str:
    return section(html, element_id, "</table>")


def text_of(html: str) -> str:
    """What a reader sees: tags dropped, runs of white space as one space."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def cells(row_html: str) -> list[str]:
    return [
        re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row_html, re.DOTALL)
    ]


def spaced(html: str) -> str:
    """Tags as spaces (for label / value boxes), runs of white space as one space."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def split_row(html: str, key: str) -> list[str]:
    match = re.search(
        rf'<tr class="split-{key}" data-split="{key}">(.*?)</tr>', table(html, "splits"), re.DOTALL
    )
    assert match is not None, key
    return cells(match.group(1))


def test_the_verdict_shows_each_split_after_and_without_costs_beside_the_universe(page: str) -> None:
    # after costs: Sharpe, annual (= Sharpe / 10 in the support data), max DD, trades, turnover;
    # without costs: Sharpe, annual, max DD; universe: Sharpe, annual, max DD
    assert split_row(page, "in_sample") == [
        "1.87", "18.7%", "-8.0%", "40", "12.5×", "2.04", "20.4%", "-7.0%", "0.55", "5.5%", "-12.0%",
    ]  # fmt: skip
    assert split_row(page, "validation")[:1] == ["1.23"] and split_row(page, "validation")[5] == "1.41"
    assert split_row(page, "holdout") == [
        "0.41", "4.1%", "-8.0%", "40", "12.5×", "0.58", "5.8%", "-7.0%", "-0.22", "-2.2%", "-12.0%",
    ]  # fmt: skip
    # February 2024 has 29 days, 8 of them weekend days (3-4, 10-11, 17-18, 24-25): 21 trading days
    assert "2024-02-01 → 2024-02-29 (21 days)" in table(page, "splits")
    verdict = section(page, "verdict")
    assert "iteration 3</b>, family <b>mean_reversion" in verdict
    assert '<b id="families-tried">momentum, mean_reversion</b>' in verdict


def test_the_verdict_states_trials_deflated_sharpe_and_pbo_with_what_they_mean(page: str) -> None:
    text = text_of(section(page, "verdict"))
    assert "Trials: 12 scored parameter sets" in text
    assert (
        "Deflated Sharpe ratio: 0.62 — the probability that the champion's true Sharpe ratio is above zero "
        "after allowing for the 12 trials it was picked from" in text
    )
    assert "0.0812 per day over 250 daily returns" in text and "SR0 = 0.0451 per day" in text
    assert "Below 0.95: the champion's edge is not established." in text  # 0.62 < 0.95
    assert (
        "Probability of backtest overfitting: 0.30 — in 30% of the 70 ways" in text and "(8 blocks)" in text
    )
    assert "did no better than picking one at random" not in text  # 0.30 < 0.5
    # the overfitting note once (under the statistics), the run's own note too
    assert text.count("overfitting note") == 1 and "summary note" in text


def test_a_pbo_at_or_above_one_half_is_called_no_better_than_random() -> None:
    figures = SUMMARY.overfitting.model_copy(update={"pbo": 0.5, "deflated_sharpe": 0.97})
    html = render_run_report(run(summary=SUMMARY.model_copy(update={"overfitting": figures})), None)
    text = section(html, "verdict")
    assert "did no better than picking one at random" in text and "0.50" in text
    assert "edge is not established" not in text  # 0.97 >= 0.95


def test_the_monthly_heatmap_has_each_month_present_with_its_return_and_year_total(page: str) -> None:
    rows = dict(re.findall(r'<tr data-year="(\d{4})">(.*?)</tr>', table(page, "monthly"), re.DOTALL))
    assert set(rows) == {"2023", "2024"}
    # 2023: Nov 1.02 / 1.00 - 1 = +2.0 %, Dec 1.071 / 1.02 - 1 = +5.0 %; year 1.071 / 1.00 - 1 = +7.1 %
    assert cells(rows["2023"]) == [""] * 10 + ["+2.0%", "+5.0%", "+7.1%"]
    # 2024: Jan 1.01745 / 1.071 - 1 = -5.0 %, Feb 1.119195 / 1.01745 - 1 = +10.0 %;
    # year 1.119195 / 1.071 - 1 = 0.95 * 1.10 - 1 = +4.5 %
    assert cells(rows["2024"]) == ["-5.0%", "+10.0%"] + [""] * 10 + ["+4.5%"]
    # +10 % is the full green (27, 127, 59) with white text; -5 % is half-way red, lighter than full red
    assert '<td data-month="2" style="background:rgb(27,127,59);color:#fff">+10.0%</td>' in rows["2024"]
    january = re.search(r'<td data-month="1" style="background:rgb\((\d+),(\d+),(\d+)\)', rows["2024"])
    assert january is not None and int(january.group(1)) > 179 and int(january.group(2)) < 255


def test_monthly_returns_compound_to_the_total_return() -> None:
    table = monthly_returns(replay())
    assert table.years == [2023, 2024]
    assert table.cells[2023][10:] == pytest.approx([0.02, 0.05]) and table.cells[2023][:10] == [None] * 10
    assert table.cells[2024][:2] == pytest.approx([-0.05, 0.10]) and table.cells[2024][2:] == [None] * 10
    assert table.totals == pytest.approx({2023: 0.071, 2024: 0.045})
    # 1.02 * 1.05 * 0.95 * 1.10 = 1.119195 = the last NAV
    total = 1.0
    for year in table.years:
        total *= 1 + table.totals[year]
    assert total == pytest.approx(1.119195)


def test_the_equity_chart_shades_the_three_periods_and_draws_the_drawdown_below() -> None:
    spec = equity_chart(replay(), "demo", PLAN)
    nav_panel, down_panel = spec.panels
    assert [(r.label, r.start, r.end) for r in nav_panel.regions] == [
        ("in-sample", "2023-11-01", "2023-12-29"),
        ("validation", "2024-01-02", "2024-01-31"),
        ("holdout", "2024-02-01", "2024-02-29"),
    ]
    assert [(r.start, r.end) for r in down_panel.regions] == [(r.start, r.end) for r in nav_panel.regions]
    assert [s.name for s in nav_panel.series] == [
        "strategy (after costs)", "strategy without costs", "equal-weight universe",
    ]  # fmt: skip
    assert nav_panel.series[1].width is not None and nav_panel.series[1].width < 1.0  # the thin gross line
    # deepest drawdown: the Dec 29 peak 1.071 to the Jan 31 trough 1.01745 = 0.95 - 1 = -5 %
    strategy_down = [v for v in down_panel.series[0].values if v is not None]
    assert min(strategy_down) == pytest.approx(-5.0) and max(strategy_down) == 0.0
    assert equity_chart(replay(), "demo").panels[0].regions == []  # no plan: nothing shaded


def test_periods_are_clipped_to_the_curve_and_walk_forward_folds_each_get_their_validation_span() -> None:
    later = DAYS[DAYS >= "2023-12-01"]
    first = split_regions(PLAN, later)[0]
    assert (first.label, first.start) == ("in-sample", "2023-12-01")
    until_january = DAYS[DAYS <= "2024-01-15"]  # a running run's replay stops before the holdout
    assert [(r.label, r.end) for r in split_regions(PLAN, until_january)] == [
        ("in-sample", "2023-12-29"), ("validation", "2024-01-15"),
    ]  # fmt: skip
    walk = SplitPlan(
        mode="walk_forward",
        folds=[
            Fold(in_sample=period("2023-11-01", "2023-12-15"), validation=period("2023-12-18", "2024-01-05")),
            Fold(in_sample=period("2023-11-20", "2024-01-05"), validation=period("2024-01-08", "2024-01-31")),
        ],
        holdout=period("2024-02-01", "2024-02-29"),
    )
    assert [(r.label, r.start, r.end) for r in split_regions(walk, DAYS)] == [
        ("in-sample", "2023-11-01", "2023-12-15"),
        ("validation 1", "2023-12-18", "2024-01-05"),
        ("validation 2", "2024-01-08", "2024-01-31"),
        ("holdout", "2024-02-01", "2024-02-29"),
    ]


def test_the_report_inlines_the_charts_with_the_shaded_periods_and_no_external_asset(page: str) -> None:
    ids = set(re.findall(r'<g id="(strategy-[a-z]+-panel\d-[a-z]+\d)"', page))
    for panel in (0, 1):
        assert {f"strategy-equity-panel{panel}-region{n}" for n in range(3)} <= ids
    assert "strategy-turnover-panel0-series0" not in ids  # bars are patches, not a series group
    assert page.count("<svg ") == 2  # equity + turnover
    assert "<script" not in page and "<link" not in page and not re.search(r'\s(src|href)="', page)


def test_the_svg_draws_one_span_per_region_and_refuses_a_region_off_the_x_values() -> None:
    x = ["a", "b", "c", "d"]
    panel = ChartPanel(
        series=[ChartSeries(name="s", values=[1, 2, 3, 4])],
        regions=[Region(label="first", start="a", end="b"), Region(start="c", end="c", color="#2e7d32")],
    )
    root = ET.fromstring(render_svg(ChartSpec(id="r", title="t", caption="c", x=x, panels=[panel])))
    found = sorted(g.get("id") or "" for g in root.iter(f"{SVG}g") if (g.get("id") or "").startswith("r-"))
    assert found == ["r-panel0-region0", "r-panel0-region1", "r-panel0-series0"]
    with pytest.raises(ValidationError, match="does not start and end on x values"):
        ChartSpec(
            id="r", title="t", caption="c", x=x, panels=[ChartPanel(regions=[Region(start="a", end="z")])]
        )
    with pytest.raises(ValidationError, match="ends before it starts"):
        ChartSpec(
            id="r", title="t", caption="c", x=x, panels=[ChartPanel(regions=[Region(start="c", end="a")])]
        )


def test_turnover_is_charted_per_execution_day() -> None:
    spec = turnover_chart(replay())
    assert spec is not None
    # 87 trading days (Nov 22 + Dec 21 + Jan 23 + Feb 21), 25 % traded on every 5th: days 0, 5, ..., 85 = 18
    assert len(DAYS) == 87 and len(spec.x) == 18 and spec.x[:2] == ["2023-11-01", "2023-11-08"]
    assert set(spec.panels[0].series[0].values) == {25.0}
    quiet = replay().model_copy(update={"turnover": []})
    assert turnover_chart(quiet) is None


def test_trades_show_the_first_and_last_fifty_with_the_totals(page: str) -> None:
    # 120 trades cycling buy, sell, stop: 40 of each; 120 - 2 * 50 = 20 left out
    summary = "120 orders: 40 buys, 40 sells, 40 stop-loss exits; 3 orders kept from filling"
    assert summary in text_of(section(page, "trades"))
    listed = table(page, "trade-list")
    symbols = re.findall(r"<td>(S\d{3})</td>", listed)
    assert symbols == [f"S{i:03d}" for i in (*range(50), *range(70, 120))]
    assert "… 20 more orders …" in listed
    short = table(render_run_report(run(), replay(trade_count=30)), "trade-list")
    assert len(re.findall(r"<td>(S\d{3})</td>", short)) == 30 and "more orders" not in short


def test_model_text_is_shown_as_text_never_as_markup(page: str) -> None:
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;alert(&#39;reasoning&#39;)&lt;/script&gt;" in section(
        page, "champion-reasoning", "</p>"
    )
    code = section(page, "champion")
    assert "&lt; close.rolling(10).mean()  # &lt;b&gt;not bold&lt;/b&gt;" in code
    assert "&lt;img src=x onerror=alert(1)&gt;" in section(page, "iterations")
    assert HOSTILE not in page


def test_the_champion_and_every_iteration_are_listed_with_their_feedback(page: str) -> None:
    params = table(page, "champion-params")
    assert '<th scope="row">entry_z</th><td><code>2.0</code></td>' in params
    assert "strategy_type" not in params  # the family is said once, above the table
    rows = dict(
        re.findall(r'data-number="(\d)" data-status="\w+">(.*?)</tr>', section(page, "iterations"), re.DOTALL)
    )
    first, failed, champion = (cells(rows[n]) for n in "123")
    assert first[0] == "momentum" and first[2:6] == ["1.11", "0.77", "ran", "1"]
    assert failed[0] == "–" and failed[4:6] == ["generation failed", "2"]
    assert "params.lookback wrong_family_field: not a momentum parameter" in text_of(failed[6])
    assert "fix asked for: lookback belongs to mean_reversion" in text_of(failed[6])
    assert champion[0] == "mean_reversion" and champion[2:5] == ["1.87", "1.23", "beat benchmark"]
    assert 'class="iteration champion" data-number="3"' in page


def test_a_running_run_without_summary_or_replay_still_renders_and_says_so() -> None:
    html = render_run_report(run(summary=None, status=RunStatus.RUNNING), None)
    assert 'id="no-summary"' in html and "status running" in html and "Resume the run" in html
    assert 'id="splits"' not in html and 'id="dsr"' not in html and 'id="no-replay"' in html
    assert "<svg" not in html and 'id="trades"' not in html
    assert '<b id="families-tried">momentum, mean_reversion</b>' in html  # known from the iterations


def test_a_run_without_champion_says_so_and_shows_what_was_computed() -> None:
    figures = OverfittingFigures(trials=2, deflated_sharpe=None, pbo=0.75, partitions=4, combinations=6)
    summary = RunSummary(plan=PLAN, splits=None, overfitting=figures, notes=["no champion: drawdown"])
    html = render_run_report(run(summary=summary), replay())
    assert 'id="no-champion"' in html and 'id="splits"' not in html
    text = text_of(section(html, "verdict"))
    assert (
        "Deflated Sharpe ratio: – — not computed." in text
        and "overfitting: 0.75 — in 75% of the 6 ways" in text
    )


def test_write_run_report_replaces_the_file_in_one_step(tmp_path: Path) -> None:
    target = tmp_path / "out" / "run.html"
    target.parent.mkdir()
    target.write_text("old")
    written = write_run_report(run(), replay(), target)
    assert written == target and target.read_text(encoding="utf-8") == render_run_report(run(), replay())
    assert [p.name for p in target.parent.iterdir()] == ["run.html"]  # no temporary file left


def test_the_run_report_prints_to_pdf_by_its_suffix(tmp_path: Path) -> None:
    if chromium_path() is None:
        pytest.skip("chromium is not installed (`make chromium` installs Debian's package)")
    written = write_run_report(run(), replay(), tmp_path / "run.pdf")
    assert written.read_bytes().startswith(b"%PDF") and [p.name for p in tmp_path.iterdir()] == ["run.pdf"]


def test_the_header_states_the_window_split_execution_rules_and_costs(page: str) -> None:
    header = spaced(section(page, "header", "</header>"))
    assert "Window 2023-11-01 → 2024-02-29" in header and "Universe 600001.SH, 600002.SH" in header
    assert "Split fixed: in-sample 60% · validation 20% · holdout 20%" in header
    assert "Fills next open after the decision" in header
    assert (
        "Capital 1,000,000 (A-shares in lots of 100 shares)" in header and "Slippage 0.05% per side" in header
    )
    assert "Price limits on:" in header and "T+1 on:" in header
    # the default CN model is charged by the dated schedule (shared.execution.costs.cost_frames)
    assert (
        "Costs CN commission 0.03% each side; stamp duty on sells 0.10% before 2023-08-28, then 0.05%"
        in header
    )
    overridden = replay().model_copy(update={"costs": {"CN": CostModel(buy=0.001, sell=0.002)}})
    assert "Costs CN buy 0.100% · sell 0.200%" in spaced(render_run_report(run(), overridden))
