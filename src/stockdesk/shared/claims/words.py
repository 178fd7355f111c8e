"""The words claims are made of: unavailability, direction, praise, levels, references, hedges.

Longer forms come first in each alternation ("负增长" before "增长"), so that the regex takes them.
"""

from __future__ import annotations

import re


def _words(*forms: str, english: tuple[str, ...] = ()) -> re.Pattern[str]:
    cjk = sorted(forms, key=len, reverse=True)
    latin = [rf"\b{w}\b" for w in sorted(english, key=len, reverse=True)]
    return re.compile("|".join([*cjk, *latin]), re.IGNORECASE)


UNAVAILABLE = _words(
    "数据不足", "暂无数据", "没有数据", "无数据", "数据缺失", "缺失", "不可用", "无法获取", "无法计算",
    "未披露", "N/A", "n/a",
    english=("not available", "unavailable", "missing", "insufficient data", "no data"),
)  # fmt: skip

NEGATIVE = _words(
    "负增长", "增长为负", "同比为负", "为负", "转负", "下降", "下滑", "减少", "恶化", "疲弱", "疲软", "萎缩",
    "下跌", "走低", "回落", "收缩", "低迷", "走弱", "转差", "变差", "不佳", "欠佳",
    english=(
        "declined", "declining", "declines", "decline", "fell", "falling", "fall", "decreased",
        "decreasing", "deteriorated", "deteriorating", "weakened", "weak", "shrank", "shrinking",
        "contracted", "contracting", "negative growth",
    ),
)  # fmt: skip
POSITIVE = _words(
    "高增长", "增长", "上升", "提升", "改善", "回升", "上涨", "走高", "增加", "扩大", "好转", "向好", "转正",
    "为正",
    english=("grew", "grows", "growing", "grow", "rose", "rising", "increased", "increasing", "improved",
             "improving"),
)  # fmt: skip
PRAISE = _words(
    "良好", "强劲", "优秀", "稳健", "亮眼", "出色", "优异", "向好", "稳步增长", "稳定增长",
    english=("strong", "robust", "solid", "excellent", "healthy"),
)  # fmt: skip
# "增长放缓" / "降幅收窄": a change of pace, not a sign
SLOWING_AFTER = re.compile(r"\s*(?:放缓|乏力|减速|停滞|见顶|趋缓|收窄|放慢|减缓|承压)")

HIGH_HISTORICAL = _words("历史高位", "高于历史", "历史高点", "历史高区", "高位", english=("historical high",))
LOW_HISTORICAL = _words("历史低位", "低于历史", "历史低点", "历史低区", "低位", english=("historical low",))
HIGH_LEVEL = _words("偏高", "较高", "高分位", "高企", english=("high", "elevated", "expensive"))
LOW_LEVEL = _words("偏低", "较低", "低分位", "便宜", english=("low", "cheap", "depressed"))
OVERBOUGHT = _words("超买", english=("overbought",))
OVERSOLD = _words("超卖", english=("oversold",))

# a benchmark, when the clause compares with it or places a value at it ...
REFERENCE = _words(
    "行业平均水平", "行业平均", "行业均值", "行业中位数", "行业中位", "行业水平", "行业整体水平",
    english=("industry average", "industry median", "industry mean", "sector average", "sector median",
             "peer average", "peer median"),
)  # fmt: skip
# ... and peers, when the clause compares ("低于同行"), not in "同行竞争加剧"
PEERS = _words(
    "同行业公司", "同行", "可比公司", "可比上市公司", "同类公司", "竞争对手",
    english=("peer group", "peers", "comparable companies", "competitors"),
)  # fmt: skip
COMPARISON = re.compile(
    r"高于|低于|优于|劣于|好于|差于|强于|弱于|领先|落后|相比|相较|比较|对比|超过|不及|跑赢|跑输|"
    r"\b(?:above|below|than|versus|vs|compared|relative)\b",
    re.IGNORECASE,
)
PLACED_AT = re.compile(r"处于|达到|接近|相当|持平|位于|符合|\b(?:in line with|at|near)\b", re.IGNORECASE)
REFERENCE_FIELD = re.compile(r"industry_(?:avg|average|mean|median)|peer|sector_(?:avg|average|median)", re.I)
ABSENCE_BEFORE = re.compile(
    r"(?:无|没有|缺少|缺乏|未提供|未给出|不含|不提供|没有提供)\s*$|\b(?:no|without|lack of)\s*$"
)

# a clause that hedges, warns or looks ahead makes no claim about the value it was given
HEDGE = re.compile(
    r"风险|隐患|担忧|警惕|关注|留意|可能|或将|若|如果|假如|一旦|预计|预期|有望|未来|将会|能否|是否|需要|需(?!求)|"
    r"\b(?:risk|risks|may|might|could|if|expect|expected|forecast|potential|would)\b",
    re.IGNORECASE,
)
# a clause about another period than the newest one
PAST = re.compile(
    r"此前|过去|以往|曾经|曾|前期|上一期|上期|前年|历史上|去年(?!同期)|上年(?!同期)|上一年(?!同期)"
)
PERIOD_LABEL = re.compile(
    r"(?:19|20)\d{2}\s*(?:年)?\s*(?:Q[1-4]|H[12]|A|年报|年度|一季报?|中报|三季报?|半年报?)?"
)

BULL_CONCLUSION = _words(
    "看多", "看好", "上涨空间", "上涨", "上行空间", "上行", "低估", "机会", "潜力", "向上", "增长", "改善",
    "稳健", "强劲", "优势", "修复", "反弹", "回升", "有望", "受益", "支撑", "价值凸显", "值得", "偏低",
    "便宜", "良好",
    english=("bullish", "undervalued", "upside", "growth", "opportunity", "opportunities", "strong",
             "improving", "cheap"),
)  # fmt: skip
# what makes a bull thesis bearish: a strong bearish conclusion (plain "风险" is a risk acknowledged)
_BEAR_VERDICT_WORDS = (
    "高估", "估值过高", "估值偏高", "风险大", "风险较大", "风险很大", "风险极大", "存在投资风险",
    "存在较大风险",
    "下跌", "下行", "看空", "卖出", "回避", "不宜", "减持", "泡沫", "缺乏投资价值", "不具备投资价值", "过高",
)  # fmt: skip
_BEAR_VERDICT_ENGLISH = ("bearish", "overvalued", "downside", "sell", "avoid")
BEAR_CONCLUSION = _words(
    *_BEAR_VERDICT_WORDS,
    "谨慎", "风险", "压力", "放缓", "下滑", "恶化", "疲弱", "拖累", "承压", "隐忧", "担忧", "回调", "缺位",
    "为负", "偏高",
    english=(*_BEAR_VERDICT_ENGLISH, "decline", "declining", "weak", "risk", "risks", "expensive"),
)  # fmt: skip
BEAR_VERDICT = _words(*_BEAR_VERDICT_WORDS, english=_BEAR_VERDICT_ENGLISH)
BULL_VERDICT = _words(
    "看多", "看好", "上涨空间", "上行空间", "低估", "估值偏低", "值得买入", "值得投资", "机会大于风险",
    "有望上涨", "具备投资价值",
    english=("bullish", "undervalued", "upside"),
)  # fmt: skip
