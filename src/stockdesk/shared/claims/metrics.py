"""How texts name a metric (ROE, 净资产收益率, PE 分位, 营收增速 ...) and which input field holds it.

The field names are those of research's snapshots (valuation, technical, and the newest period of
the financial snapshot) and of the debate digests' key numbers, which copy them. Specific names
come before general ones: "PE 分位" is pe_percentile, "PE" alone pe_ttm, "PEG" neither.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["level", "growth", "margin", "percentile", "multiple", "oscillator", "results"]


@dataclass(frozen=True)
class Metric:
    """A metric as written in text. `keys`: the input fields holding it, the first present wins."""

    name: str
    pattern: str
    keys: tuple[str, ...]
    kind: Kind = "level"
    availability: bool = True  # "X 数据不足" is checked (not for bare "营收": only its growth is given)
    percentile_keys: tuple[str, ...] = ()  # multiples: "PE 处于历史高位" is about pe_percentile
    trend_key: str | None = None  # margins: "毛利率提升" is about this trend


def _ascii(alias: str) -> str:
    """An ASCII name must stand alone: PE is not inside PEG, OPEN or EPS."""
    return rf"(?<![A-Za-z]){alias}(?![A-Za-z])"


_TTM = r"(?:\s*[(（]?TTM[)）]?)?"


def _percentile(name: str, ascii_name: str, chinese: str, key: str) -> Metric:
    pattern = (
        rf"(?:{_ascii(ascii_name)}{_TTM}|{chinese})\s*(?:的)?\s*(?:历史)?\s*(?:百)?分位(?:数(?!据)|值)?"
        rf"|{_ascii(ascii_name)}\s+percentile"
    )
    return Metric(name, pattern, (key,), "percentile")


def _moving_average(days: int) -> Metric:
    return Metric(f"MA{days}", rf"{_ascii(f'MA{days}')}|{days}\s*日均线", (f"ma{days}",))


_GROWTH_WORD = r"\s*(?:同比)?\s*(?:增速|增长率|增幅|同比)"
_PROFIT = r"(?:扣非)?(?:归母)?净利(?:润)?|利润"

METRICS: tuple[Metric, ...] = (
    _percentile("PE 分位", "PE", "市盈率", "pe_percentile"),
    _percentile("PB 分位", "PB", "市净率", "pb_percentile"),
    _percentile("PS 分位", "PS", "市销率", "ps_percentile"),
    Metric("PEG", _ascii("PEG"), ("peg_ratio",)),
    Metric(
        "PE",
        rf"{_ascii('PE')}{_TTM}|{_ascii('P/E')}|市盈率",
        ("pe_ttm",),
        "multiple",
        True,
        ("pe_percentile",),
    ),
    Metric("PB", rf"{_ascii('PB')}|{_ascii('P/B')}|市净率", ("pb",), "multiple", True, ("pb_percentile",)),
    Metric(
        "PS",
        rf"{_ascii('PS')}{_TTM}|{_ascii('P/S')}|市销率",
        ("ps_ttm",),
        "multiple",
        True,
        ("ps_percentile",),
    ),
    Metric("股息率", r"股息率|dividend yield", ("dv_ratio",)),
    Metric("总市值", r"总市值|market cap", ("total_mv",)),
    Metric(
        "营收增速",
        rf"营(?:业)?收(?:入)?{_GROWTH_WORD}|收入(?:增速|增长率|同比)|revenue growth|sales growth",
        ("revenue_yoy",),
        "growth",
    ),
    Metric("营收", r"营(?:业)?收(?:入)?|收入|revenue|sales", ("revenue_yoy",), "growth", availability=False),
    Metric(
        "增速均值",
        r"(?:EPS|每股收益|盈利|利润)?\s*(?:同比)?\s*(?:平均增速|增速均值|复合增速|复合增长率|平均增长率)"
        rf"|{_ascii('EPS')}\s*增速|average growth",
        ("growth_rate_avg", "profit_dedt_yoy"),
        "growth",
    ),
    Metric("净利率", r"(?:销售)?净利(?:润)?率|net margin", ("net_margin",), "margin"),
    Metric(
        "净利润增速",
        rf"(?:{_PROFIT}){_GROWTH_WORD}|(?:net )?profit growth|earnings growth",
        ("profit_dedt_yoy", "growth_rate_avg"),
        "growth",
    ),
    Metric(
        "净利润",
        r"(?:扣非)?(?:归母)?净利润|扣非净利(?!率)|利润(?!率)|盈利(?!能力|质量|水平|预测|预期)"
        r"|net profit|earnings",
        ("profit_dedt_yoy", "growth_rate_avg"),
        "growth",
        availability=False,
    ),
    Metric(
        "业绩",
        r"业绩|财务表现|经营表现|经营业绩|整体表现|成长性|表现|results|performance",
        ("revenue_yoy", "profit_dedt_yoy", "growth_rate_avg"),
        "results",
        availability=False,
    ),
    Metric(
        "毛利率", r"(?:销售)?毛利率|gross margin", ("gross_margin",), "margin", trend_key="gross_margin_trend"
    ),
    Metric("ROE", rf"{_ascii('ROE')}|净资产收益率|return on equity", ("roe",)),
    Metric("ROIC", rf"{_ascii('ROIC')}|投入资本回报率", ("roic",)),
    Metric("资产负债率", r"资产负债率|负债率|debt[- ]to[- ]assets|debt ratio", ("debt_to_assets",)),
    Metric("有息负债", r"有息负债|interest[- ]bearing debt", ("interest_debt_yi",)),
    Metric("流动比率", r"流动比率|current ratio", ("current_ratio",)),
    Metric("速动比率", r"速动比率|quick ratio", ("quick_ratio",)),
    Metric("现金流质量", r"现金流质量|现金质量|cash quality", ("cash_quality",)),
    Metric("应收账款周转天数", r"应收(?:账款)?(?:周转)?天数", ("receivable_days",)),
    Metric("存货周转天数", r"存货(?:周转)?天数", ("inventory_days",)),
    Metric("EPS", rf"{_ascii('EPS')}|每股收益", ("eps_ttm",)),
    Metric("BPS", rf"{_ascii('BPS')}|每股净资产", ("bps",)),
    Metric("内在价值", r"(?:格雷厄姆)?内在价值|intrinsic value", ("graham_intrinsic_val",)),
    Metric("安全边际", r"安全边际|margin of safety", ("graham_safety_margin",)),
    Metric(
        "近 5 日涨跌幅",
        r"(?:近|过去)\s*(?:5|五)\s*(?:个交易)?日(?:涨跌幅|涨幅|跌幅|涨跌)?",
        ("change_5d_pct",),
        "growth",
    ),
    Metric(
        "近 20 日涨跌幅",
        r"(?:近|过去)\s*(?:20|二十)\s*(?:个交易)?日(?:涨跌幅|涨幅|跌幅|涨跌)?|近一个?月",
        ("change_20d_pct",),
        "growth",
    ),
    Metric("RSI", rf"{_ascii('RSI')}(?:\s*\(?14\)?)?", ("rsi14",), "oscillator"),
    Metric("MACD", _ascii("MACD"), ("macd_hist", "macd_dif", "macd_dea")),
    Metric("KDJ", _ascii("KDJ"), ("kdj_k", "kdj_d", "kdj_j")),
    Metric("ATR", rf"{_ascii('ATR')}(?:\s*\(?14\)?)?", ("atr14", "atr14_pct")),
    Metric("ADX", rf"{_ascii('ADX')}(?:\s*\(?14\)?)?", ("adx14",)),
    Metric(
        "布林带", rf"布林(?:带|线|通道)?|{_ascii('BOLL')}|Bollinger", ("boll_mid", "boll_upper", "boll_lower")
    ),
    Metric("量比", r"量比|volume ratio", ("volume_ratio",)),
    Metric("VWAP", _ascii("VWAP"), ("vwap20",)),
    *(_moving_average(days) for days in (5, 10, 20, 60, 120, 250)),
)

_ALL = re.compile("|".join(f"(?P<m{i}>{m.pattern})" for i, m in enumerate(METRICS)), re.IGNORECASE)


@dataclass(frozen=True)
class Mention:
    metric: Metric
    start: int
    end: int


def find_metrics(text: str) -> list[Mention]:
    """Every metric named in `text`, left to right, the most specific name at each place."""
    found = []
    for match in _ALL.finditer(text):
        index = int((match.lastgroup or "m0")[1:])
        found.append(Mention(METRICS[index], match.start(), match.end()))
    return found


def nearest_before(mentions: list[Mention], position: int, kinds: set[str] | None = None) -> Mention | None:
    """The metric a word at `position` is said about: the last one named before it in the clause."""
    before = [m for m in mentions if m.end <= position]
    if not before:
        return None
    last = before[-1]
    return last if kinds is None or last.metric.kind in kinds else None
