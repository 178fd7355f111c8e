"""Valuation snapshot builder: every precomputed number checked against a hand calculation."""

from __future__ import annotations

import logging
import math

import pytest

from stockdesk.research.application.snapshot.valuation_snapshot_builder import ValuationSnapshotBuilder
from stockdesk.research.domain.dtos.valuation import NA
from tests.research.support import AS_OF, QUARTERS, dailies, finance_records, overview

build = ValuationSnapshotBuilder().build


def test_percentile_correct():
    """分位点正确计算: rank = count(valid <= current), round-half-up(rank / n * 100)."""
    snap = build(overview(pe_ttm=15.0, pb=2.0, ps_ttm=3.0), dailies(200), finance_records(), AS_OF)
    assert snap.pe_percentile == 3  # 10..15 -> 6 of 200
    assert snap.ps_percentile == 100  # all equal 3.0 -> rank n
    assert snap.history_days == 200
    half = build(overview(pe_ttm=10.0), dailies(200), finance_records(), AS_OF)
    assert half.pe_percentile == 1  # 1/200*100 = 0.5 rounds half up, not to even


def test_percentile_skips_negative_and_missing_values():
    """历史数据含负值或缺失值: None, negative and zero values are skipped."""
    pe = [None] * 20 + [-5.0] * 15 + [0.0] * 5 + [float(v) for v in range(1, 81)]
    snap = build(overview(pe_ttm=20.0), dailies(120, pe=pe), finance_records(), AS_OF)
    assert snap.pe_percentile == 25  # 20 of the 80 valid values are <= 20


def test_percentile_insufficient_history_is_na():
    """历史数据不足时不捏造: fewer than 60 valid values -> N/A."""
    pe = [None] * 100 + [float(v) for v in range(1, 60)]
    snap = build(overview(pe_ttm=20.0), dailies(159, pe=pe), finance_records(), AS_OF)
    assert snap.pe_percentile == NA
    assert build(overview(pe_ttm=-3.0), dailies(200), finance_records(), AS_OF).pe_percentile == NA


def test_percentile_window_is_three_years_ending_at_as_of():
    many = dailies(1000)  # about four years of business days
    snap = build(overview(pe_ttm=15.0), many, finance_records(), AS_OF)
    in_window = [d for d in many if (AS_OF.replace(year=AS_OF.year - 3) < d.trade_date <= AS_OF)]
    assert snap.history_days == len(in_window) < 1000


def test_peg_correct():
    """PEG 正确计算: mean of the 4 latest YoY deducted-profit growths; PEG = PE-TTM / growth."""
    snap = build(overview(pe_ttm=15.0), dailies(), finance_records(), AS_OF)
    # 2023H1 +20%, 2023Q3 +12.5%, 2023A +20%, 2024Q1 +30% (2023Q1 has no 2022Q1 to compare)
    assert snap.growth_rate_avg == 20.63  # 20.625 rounded half up
    assert snap.growth_periods == 4
    assert snap.peg_ratio == 0.73  # 15 / 20.625


def test_peg_na_when_growth_zero_or_negative():
    """增速为零或负时 PEG 标记 N/A."""
    shrinking = [(e, eps, bps, -p if e >= "2023" else p, gm) for e, eps, bps, p, gm in QUARTERS]
    snap = build(overview(pe_ttm=15.0), dailies(), finance_records(shrinking), AS_OF)
    assert isinstance(snap.growth_rate_avg, float) and snap.growth_rate_avg < 0
    assert snap.peg_ratio == NA
    flat = [(e, eps, bps, 100.0, gm) for e, eps, bps, _, gm in QUARTERS]
    flat_snap = build(overview(pe_ttm=15.0), dailies(), finance_records(flat), AS_OF)
    assert flat_snap.growth_rate_avg == 0.0 and flat_snap.peg_ratio == NA


def test_growth_na_with_a_single_period():
    """财务数据不足以计算增速: one period -> growth_rate_avg and peg_ratio N/A."""
    snap = build(overview(), dailies(), finance_records(QUARTERS[-1:]), AS_OF)
    assert snap.growth_rate_avg == NA and snap.peg_ratio == NA


def test_graham_number_correct():
    """Graham Number 正确计算: sqrt(22.5 x EPS_TTM x BPS) with TTM EPS, 2 decimals."""
    snap = build(overview(close=20.0), dailies(), finance_records(), AS_OF)
    eps_ttm = 0.40 + 1.20 - 0.30
    assert snap.eps_ttm == pytest.approx(eps_ttm)
    assert snap.graham_intrinsic_val == round(math.sqrt(22.5 * eps_ttm * 10.4), 2) == 17.44


def test_safety_margin_correct():
    """安全边际正确计算: (Graham - Price) / Price x 100, one decimal."""
    snap = build(overview(close=20.0), dailies(), finance_records(), AS_OF)
    assert snap.graham_safety_margin == -12.8  # (17.4413 - 20) / 20 * 100
    cheap = build(overview(close=10.0), dailies(), finance_records(), AS_OF)
    assert cheap.graham_safety_margin == 74.4


@pytest.mark.parametrize(
    ("eps", "bps"), [(0.0, 10.0), (-0.5, 10.0), (1.0, 0.0), (1.0, -2.0), (None, 10.0), (1.0, None)]
)
def test_graham_na_when_eps_or_bps_not_positive(eps, bps):
    """EPS 或 BPS 为负/零/None 时标记 N/A (and no exception)."""
    annual = [("2023-12-31", eps, bps, 100.0, 30.0)]
    snap = build(overview(), dailies(), finance_records(annual), AS_OF)
    assert snap.graham_intrinsic_val == NA and snap.graham_safety_margin == NA


def test_gross_margin_trend_correct():
    """毛利率趋势正确生成: latest vs the same period a year earlier, in percentage points."""
    snap = build(overview(), dailies(), finance_records(), AS_OF)
    assert snap.gross_margin_trend == "同比上升 2.2%"  # 33.7 vs 31.5
    lower = [(e, eps, bps, p, gm - 5 if e == "2024-03-31" else gm) for e, eps, bps, p, gm in QUARTERS]
    assert build(overview(), dailies(), finance_records(lower), AS_OF).gross_margin_trend == "同比下降 2.8%"
    same = [(e, eps, bps, p, 31.5 if e == "2024-03-31" else gm) for e, eps, bps, p, gm in QUARTERS]
    assert build(overview(), dailies(), finance_records(same), AS_OF).gross_margin_trend == "持平"


def test_gross_margin_trend_na_with_one_period():
    """仅 1 期数据时趋势为 N/A; banks without a gross margin also get N/A."""
    assert build(overview(), dailies(), finance_records(QUARTERS[-1:]), AS_OF).gross_margin_trend == NA
    bank = [(e, eps, bps, p, None) for e, eps, bps, p, _ in QUARTERS]
    snap = build(overview(), dailies(), finance_records(bank), AS_OF)
    assert snap.gross_margin_trend == NA and snap.gross_margin == NA


def test_snapshot_precomputation_known_data():
    """测试覆盖快照构建预计算: pe_percentile, peg_ratio, graham_intrinsic_val, graham_safety_margin."""
    snap = build(overview(pe_ttm=15.0, close=20.0), dailies(200), finance_records(), AS_OF)
    assert (snap.pe_percentile, snap.peg_ratio, snap.graham_intrinsic_val, snap.graham_safety_margin) == (
        3, 0.73, 17.44, -12.8,
    )  # fmt: skip


def test_na_boundaries():
    """测试覆盖 N/A 边界条件: EPS 0 -> Graham N/A; negative growth -> PEG N/A; short history -> N/A."""
    zero_eps = build(overview(), dailies(), finance_records([("2023-12-31", 0.0, 9.0, 1.0, 30.0)]), AS_OF)
    assert zero_eps.graham_intrinsic_val == NA
    shrinking = [(e, eps, bps, 1000.0 - i * 100, gm) for i, (e, eps, bps, _, gm) in enumerate(QUARTERS)]
    assert build(overview(), dailies(), finance_records(shrinking), AS_OF).peg_ratio == NA
    assert build(overview(), dailies(30), finance_records(), AS_OF).pe_percentile == NA


def test_total_mv_in_yi_and_out_of_range_values_become_na(caplog):
    with caplog.at_level(logging.WARNING):
        snap = build(
            overview(total_mv=123_456_000_000.0, pe_ttm=99_999.0), dailies(), finance_records(), AS_OF
        )
    assert snap.total_mv == 1234.56  # 亿
    assert snap.pe_ttm == NA and snap.peg_ratio == NA
    assert any("pe_ttm" in r.getMessage() and "99999" in r.getMessage() and "600001.SH" in r.getMessage()
               for r in caplog.records)  # fmt: skip
