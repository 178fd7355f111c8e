"""Each expert's code-only signal on hand-built snapshots (no LLM): the documented rules."""

from __future__ import annotations

from stockdesk.research.application import RulesOnlyResultDTO, with_code_signal
from stockdesk.research.application.code_signals import code_signal


def test_cheap_valuation_is_bullish() -> None:
    snapshot = {"pe_percentile": 14, "pb_percentile": 2, "graham_safety_margin": 35.0, "peg_ratio": 0.8}
    result = code_signal("valuation_modeler", snapshot)
    # percentile mean 8 -> +1; margin 35 -> +1; PEG 0.8 -> +0.5; mean 0.833
    assert result.stance == "bullish" and result.score == 0.833 and result.confidence == 0.8
    assert "PE/PB 历史分位均值 8" in result.reasons


def test_valuation_with_missing_numbers_scales_confidence_by_coverage() -> None:
    result = code_signal(
        "valuation_modeler", {"pe_percentile": 90, "pb_percentile": "N/A", "peg_ratio": "N/A"}
    )
    # only the percentile: -1; coverage 1/3 -> (0.3 + 0.6) / 3
    assert result.stance == "bearish" and result.score == -1.0 and result.confidence == 0.3


def test_uptrend_is_bullish_technically() -> None:
    snapshot = {"close": 110, "ma20": 100, "ma60": 95, "ma120": 90, "change_20d_pct": 8.0, "macd_hist": 0.4,
                "rsi14": 80}  # fmt: skip
    result = code_signal("technical_analyst", snapshot)
    # trend +1, momentum +1, macd +0.5, RSI overbought -0.5 -> 0.5
    assert result.stance == "bullish" and result.score == 0.5


def test_shrinking_company_is_bearish_financially() -> None:
    """The recorded case: revenue -13.7%, profit -25.5%, ROE 4.46 in Q1 (17.84 annualised)."""
    period = {"period": "2020Q1", "revenue_yoy": -13.7, "profit_dedt_yoy": -25.5, "roe": 4.46,
              "debt_to_assets": 40.0, "cash_quality": 0.3}  # fmt: skip
    result = code_signal("financial_auditor", {"periods": [period]})
    # -1, -1, ROE 17.84 -> +1, leverage 0, cash -0.5 -> -0.3
    assert result.stance == "bearish" and result.score == -0.3
    assert result.reasons[0] == "代码财务评分 35" and "年化 ROE 17.84%（2020Q1）" in result.reasons


def test_headlines_are_counted_for_the_search_experts() -> None:
    items = [{"title": "公司业绩增长超预期"}, {"title": "股东增持公告"}, {"title": "遭监管立案调查"}]
    snapshot = {"dimensions": [{"items": items}]}
    result = code_signal("catalyst_detective", snapshot)
    assert (
        result.reasons == ["正面条目 2，负面条目 1"] and result.score == 0.333 and result.stance == "bullish"
    )


def test_no_headlines_is_neutral_with_no_confidence() -> None:
    result = code_signal("macro_intelligence", {"dimensions": []})
    assert (result.stance, result.confidence) == ("neutral", 0.0)


def test_signal_read_from_a_full_result() -> None:
    stale = code_signal("valuation_modeler", {"pe_percentile": 5})  # what the result carried before
    result = RulesOnlyResultDTO(symbol="X", code_signal=stale, valuation_indicators={"pe_percentile": 50})
    signal = with_code_signal("valuation_modeler", result).code_signal
    assert signal is not None
    assert signal.stance == "neutral" and signal.score == 0.0 and signal.confidence == 0.1
