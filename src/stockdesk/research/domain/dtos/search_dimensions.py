"""The search dimensions of each soft-intelligence expert: one list per expert, data not code.

Fast-moving dimensions (company events, market sentiment, monetary policy) look back one week
with more results; slow ones (industry policy, macro economy, industry outlook, industry
catalysts, earnings expectations) one month with fewer.
"""

from __future__ import annotations

from stockdesk.research.domain.dtos.search import SearchDimensionConfig

MACRO_DIMENSIONS: tuple[SearchDimensionConfig, ...] = (
    SearchDimensionConfig(
        name="monetary_policy",
        topic="货币政策",
        query_template="{year} 央行 利率 流动性",
        query_template_en='{year} "Federal Reserve" "interest rates"',
        count=8,
        freshness="oneWeek",
        stock_scoped=False,
    ),
    SearchDimensionConfig(
        name="industry_policy",
        topic="产业政策",
        query_template="{industry} 产业政策 监管",
        query_template_en="{industry} regulation policy",
        count=6,
        freshness="oneMonth",
        stock_scoped=False,
    ),
    SearchDimensionConfig(
        name="macro_economy",
        topic="宏观经济",
        query_template="{year} GDP CPI 经济数据",
        query_template_en="{year} economy inflation GDP",
        count=5,
        freshness="oneMonth",
        stock_scoped=False,
    ),
    SearchDimensionConfig(
        name="industry_outlook",
        topic="行业景气",
        query_template="{industry} 行业景气 需求",
        query_template_en="{industry} demand outlook",
        count=6,
        freshness="oneMonth",
        stock_scoped=False,
    ),
)

CATALYST_DIMENSIONS: tuple[SearchDimensionConfig, ...] = (
    SearchDimensionConfig(
        name="company_events",
        topic="公司重大事件",
        query_template="{stock_name} 重大事项 公告",
        query_template_en="{stock_name} announces acquisition",
        count=8,
        freshness="oneWeek",
        stock_scoped=True,
    ),
    SearchDimensionConfig(
        name="industry_catalysts",
        topic="行业催化",
        query_template="{industry} 利好 技术突破",
        query_template_en="{industry} catalyst innovation",
        count=6,
        freshness="oneMonth",
        stock_scoped=False,
    ),
    SearchDimensionConfig(
        name="market_sentiment",
        topic="市场情绪",
        query_template="{stock_name} 股价 资金流向",
        query_template_en="{stock_name} shares investors sentiment",
        count=8,
        freshness="oneWeek",
        stock_scoped=True,
    ),
    SearchDimensionConfig(
        name="earnings_expectations",
        topic="财报预期",
        query_template="{stock_name} {year} 业绩预告 盈利预测",
        query_template_en="{stock_name} earnings estimates guidance",
        count=6,
        freshness="oneMonth",
        stock_scoped=True,
    ),
)
