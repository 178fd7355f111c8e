"""Chart series computed in code: moving averages, forward adjustment, percentile bands, YoY growth,
point in time, and the service that builds each chart on its own (hand-checked numbers)."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from stockdesk.entrypoints.container import AppContainer
from stockdesk.research.application import ChartDataService
from stockdesk.research.application.chart_series import (
    ChartSeriesBuilder,
    financial_chart,
    ordinal,
    price_chart,
    valuation_chart,
)
from stockdesk.research.domain.dtos.technical import PriceBarInput
from stockdesk.research.domain.dtos.valuation import ValuationDailyInput
from stockdesk.shared.charts import ChartSpec
from stockdesk.shared.config import Settings
from stockdesk.shared.errors import NotFoundException
from tests.research.support import AS_OF, audit_records, dailies, populate_store


def bars(closes: list[float], factors: list[float] | None = None, *, after: int = 0) -> list[PriceBarInput]:
    """One bar per business day ending at AS_OF, then `after` bars past it (which must never show)."""
    days = pd.bdate_range(end=AS_OF, periods=len(closes)).append(
        pd.bdate_range(start=AS_OF + timedelta(days=1), periods=after)
    )
    closes = [*closes, *[9999.0] * after]
    factors = [*(factors or [1.0] * (len(closes) - after)), *[1.0] * after]
    return [
        PriceBarInput(trade_date=d.date(), open=c, high=c, low=c, close=c, volume=2e6, adj_factor=f)
        for d, c, f in zip(days, closes, factors, strict=True)
    ]


def panel_series(chart: ChartSpec, panel: int = 0) -> dict[str, list[float | None]]:
    return {s.name: s.values for s in chart.panels[panel].series}


# ---- price ---------------------------------------------------------------------------------------
def test_price_chart_shows_the_last_250_days_with_hand_checked_moving_averages() -> None:
    chart = price_chart("600001.SH", bars([float(v) for v in range(1, 301)], after=5), AS_OF)
    assert chart is not None and chart.id == "price"
    assert len(chart.x) == 250 and chart.x[-1] == AS_OF.isoformat()  # nothing after the analysis date
    series = panel_series(chart)
    assert series["close"][0] == 51.0 and series["close"][-1] == 300.0
    assert series["MA20"][-1] == 290.5  # mean of 281..300
    assert series["MA60"][-1] == 270.5  # mean of 241..300
    assert series["MA120"][-1] == 240.5  # mean of 181..300
    # MA120 needs 120 bars: the 120th bar (value 120) is the 70th shown day, mean of 1..120 = 60.5
    assert series["MA120"][:69] == [None] * 69 and series["MA120"][69] == 60.5
    assert series["MA20"][0] == 41.5  # warmed up on the bars before the window: mean of 32..51
    assert panel_series(chart, 1)["volume"] == [2.0] * 250  # millions of shares
    assert "Close 300.00 on 2024-06-28 is above MA20 290.50, above MA60 270.50, above MA120 240.50" in (
        chart.caption
    )


def test_price_chart_is_forward_adjusted_and_short_histories_have_no_moving_average() -> None:
    chart = price_chart("600001.SH", bars([10.0] * 30, [1.0] * 15 + [2.0] * 15), AS_OF)
    assert chart is not None
    close = panel_series(chart)["close"]
    assert close[:15] == [5.0] * 15 and close[15:] == [10.0] * 15  # x factor / latest factor
    assert panel_series(chart)["MA60"] == [None] * 30
    assert "MA60" not in chart.caption and "MA20 10.00" not in chart.caption
    assert price_chart("600001.SH", [], AS_OF) is None


# ---- valuation -----------------------------------------------------------------------------------
def test_valuation_chart_has_10_50_90_percentile_bands_and_today_as_a_point() -> None:
    chart = valuation_chart("600001.SH", dailies(200), AS_OF)  # pe 10, 11, ..., 209
    assert chart is not None and [p.y_label for p in chart.panels] == ["PE (TTM)", "PB"]
    pe = chart.panels[0]
    [band] = pe.bands
    assert band.lower == [29.9] * 200 and band.upper == [189.1] * 200  # 10 + 0.1 x 199, 10 + 0.9 x 199
    assert [line.value for line in pe.lines] == [109.5]  # the median, dotted
    [today] = pe.points
    assert (today.x, today.y) == (AS_OF.isoformat(), 209.0) and "pct 100" in today.label
    assert chart.title == "600001.SH valuation, history since 2023-09-25: PE (TTM) and PB"
    assert chart.caption.startswith(
        "Against the history since 2023-09-25 shown, on 2024-06-28: "
        "PE (TTM) 209.00 is at the 100th percentile; PB 3.99 is at the 100th percentile"
    )


def test_valuation_chart_keeps_to_three_years_and_draws_no_band_on_thin_history() -> None:
    pe = [None] * 100 + [-5.0] * 10 + [float(v) for v in range(1, 51)]  # 50 valid values: too few
    old = ValuationDailyInput(trade_date=AS_OF - timedelta(days=4 * 365), pe_ttm=999.0, pb=9.0)
    chart = valuation_chart("600001.SH", [old, *dailies(160, pe=pe)], AS_OF)
    assert chart is not None and len(chart.x) == 160  # the 4-year-old row is outside the window
    pe_panel = chart.panels[0]
    assert pe_panel.series[0].values[100:111] == [None] * 10 + [1.0]  # negative PE: a gap
    assert pe_panel.bands == [] and pe_panel.lines == []
    assert "PE (TTM) 50.00 (too little history to rank)" in chart.caption
    assert valuation_chart("600001.SH", [old], AS_OF) is None
    three_years = valuation_chart("600001.SH", dailies(800), AS_OF)  # 800 business days: > 3 years
    assert three_years is not None and three_years.title == "600001.SH valuation, 3 years: PE (TTM) and PB"
    assert three_years.x[0] == "2021-06-29"  # the window: (as_of - 3 years, as_of]


# ---- financials ----------------------------------------------------------------------------------
def test_financial_chart_growth_roe_and_margin_per_period() -> None:
    chart = financial_chart("600001.SH", audit_records(), AS_OF)
    assert chart is not None and chart.x_kind == "category"
    assert chart.x == ["2022H1", "2022Q3", "2022A", "2023Q1", "2023H1", "2023Q3", "2023A", "2024Q1"]
    growth = panel_series(chart)
    # revenue 1000 + 100 i (YTD): 2023H1 1400 vs 2022H1 1000, 2024Q1 1700 vs 2023Q1 1300
    assert growth["revenue YoY %"] == [None] * 4 + [40.0, 36.36, 33.33, 30.77]
    # deducted profit 500, 800, 1000, 300, 600, 900, 1200, 390
    assert growth["deducted profit YoY %"] == [None] * 4 + [20.0, 12.5, 20.0, 30.0]
    returns = panel_series(chart, 1)
    assert returns["ROE % (YTD)"] == [12.5] * 8
    assert returns["gross margin %"] == [30.0, 30.5, 31.0, 31.5, 32.0, 32.5, 33.0, 33.7]
    assert chart.caption.startswith("Latest period 2024Q1: revenue YoY +30.8%, deducted profit YoY +30.0%")


def test_financial_chart_reads_reports_announced_by_the_date_and_drops_empty_series() -> None:
    chart = financial_chart("600001.SH", audit_records(), date(2024, 4, 15))  # 2024Q1 out on 04-30
    assert chart is not None and chart.x[-1] == "2023A"
    assert financial_chart("600001.SH", audit_records(), date(2022, 7, 1)) is None
    insurer = [r.model_copy(update={"grossprofit_margin": None}) for r in audit_records()]
    chart = financial_chart("601318.SH", insurer, AS_OF)  # no gross margin: no empty legend entry
    assert chart is not None and list(panel_series(chart, 1)) == ["ROE % (YTD)"]
    assert "gross margin n/a" in chart.caption


def test_ordinals() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 100, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "100th", "101st", "111th",
    ]  # fmt: skip


# ---- the service ---------------------------------------------------------------------------------
def test_the_service_builds_every_chart_from_the_store(settings: Settings) -> None:
    container = AppContainer(settings)
    populate_store(container.database)
    built = container.research.chart_data.build("600001.sh", AS_OF)
    assert [c.id for c in built.charts] == ["price", "valuation", "financials"] and built.failed == {}
    assert all(c.x[-1] <= AS_OF.isoformat() for c in built.charts if c.x_kind == "date")
    assert all(c.title.isascii() and c.caption.isascii() for c in built.charts)
    with pytest.raises(NotFoundException):
        container.research.chart_data.build("999999.SH", AS_OF)


class ValuationFails(ChartSeriesBuilder):
    def valuation(self, symbol: str, dailies: list[ValuationDailyInput], as_of: date) -> ChartSpec | None:
        raise ZeroDivisionError("no luck")


def test_one_failing_chart_leaves_the_others(settings: Settings) -> None:
    container = AppContainer(settings)
    populate_store(container.database)
    research = container.research
    service = ChartDataService(research.stock_data, ValuationFails())
    built = service.build("600001.SH", AS_OF)
    assert [c.id for c in built.charts] == ["price", "financials"]
    assert built.failed == {"valuation": "ZeroDivisionError: no luck"}
    assert np.isfinite([v for v in built.charts[0].panels[0].series[0].values if v is not None]).all()
