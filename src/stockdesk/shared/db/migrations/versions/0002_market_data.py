"""Market data store: securities, bars, valuations, financial reports, news, filings, sync state.

Revision ID: 0002_market_data
Revises: 0001_llm_platform
Create Date: 2026-11-21
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_market_data"
down_revision = "0001_llm_platform"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "securities",
        sa.Column("symbol", sa.String(20), primary_key=True),
        sa.Column("name", sa.String(200)),
        sa.Column("industry", sa.String(200)),
        sa.Column("market", sa.String(8), nullable=False),
        sa.Column("exchange", sa.String(16)),
        sa.Column("currency", sa.String(8)),
        sa.Column("list_date", sa.Date()),
        sa.Column("provider_codes", sa.JSON()),
    )
    op.create_table(
        "daily_bars",
        sa.Column("symbol", sa.String(20), primary_key=True),
        sa.Column("trade_date", sa.Date(), primary_key=True),
        sa.Column("open", sa.Float()),
        sa.Column("high", sa.Float()),
        sa.Column("low", sa.Float()),
        sa.Column("close", sa.Float(), nullable=False),
        sa.Column("pre_close", sa.Float()),
        sa.Column("pct_chg", sa.Float()),
        sa.Column("volume", sa.Float()),
        sa.Column("amount", sa.Float()),
        sa.Column("adj_factor", sa.Float()),
    )
    op.create_table(
        "daily_valuations",
        sa.Column("symbol", sa.String(20), primary_key=True),
        sa.Column("trade_date", sa.Date(), primary_key=True),
        sa.Column("close", sa.Float()),
        sa.Column("total_mv", sa.Float()),
        sa.Column("circ_mv", sa.Float()),
        sa.Column("pe", sa.Float()),
        sa.Column("pe_ttm", sa.Float()),
        sa.Column("pb", sa.Float()),
        sa.Column("ps", sa.Float()),
        sa.Column("ps_ttm", sa.Float()),
        sa.Column("dv_ratio", sa.Float()),
        sa.Column("dv_ttm", sa.Float()),
        sa.Column("turnover_rate", sa.Float()),
        sa.Column("is_derived", sa.Boolean(), nullable=False),
    )
    op.create_table(
        "financial_reports",
        sa.Column("symbol", sa.String(20), primary_key=True),
        sa.Column("end_date", sa.Date(), primary_key=True),
        sa.Column("ann_date", sa.Date(), primary_key=True),
        sa.Column("report_type", sa.String(8), nullable=False),
        sa.Column("eps", sa.Float()),
        sa.Column("dt_eps", sa.Float()),
        sa.Column("bps", sa.Float()),
        sa.Column("roe", sa.Float()),
        sa.Column("roe_waa", sa.Float()),
        sa.Column("roe_dt", sa.Float()),
        sa.Column("roa", sa.Float()),
        sa.Column("roic", sa.Float()),
        sa.Column("grossprofit_margin", sa.Float()),
        sa.Column("netprofit_margin", sa.Float()),
        sa.Column("debt_to_assets", sa.Float()),
        sa.Column("profit_dedt", sa.Float()),
        sa.Column("revenue", sa.Float()),
        sa.Column("net_profit", sa.Float()),
        sa.Column("revenue_ps", sa.Float()),
        sa.Column("ocfps", sa.Float()),
        sa.Column("cfps", sa.Float()),
        sa.Column("current_ratio", sa.Float()),
        sa.Column("quick_ratio", sa.Float()),
        sa.Column("ar_turn", sa.Float()),
        sa.Column("inv_turn", sa.Float()),
        sa.Column("arturn_days", sa.Float()),
        sa.Column("invturn_days", sa.Float()),
        sa.Column("turn_days", sa.Float()),
        sa.Column("interestdebt", sa.Float()),
        sa.Column("netdebt", sa.Float()),
        sa.Column("or_yoy", sa.Float()),
        sa.Column("netprofit_yoy", sa.Float()),
        sa.Column("dt_netprofit_yoy", sa.Float()),
        sa.Column("total_shares", sa.Float()),
        sa.Column("extra", sa.JSON()),
    )
    op.create_table(
        "dividends",
        sa.Column("symbol", sa.String(20), primary_key=True),
        sa.Column("ex_date", sa.Date(), primary_key=True),
        sa.Column("cash_per_share", sa.Float(), nullable=False),
    )
    op.create_table(
        "news_items",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("symbol", sa.String(20), nullable=False),
        sa.Column("published_at", sa.DateTime()),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("summary", sa.Text()),
        sa.Column("body", sa.Text()),
        sa.Column("url", sa.String(1000), nullable=False),
        sa.Column("source", sa.String(200)),
        sa.UniqueConstraint("symbol", "url", name="uq_news_items_symbol_url"),
    )
    op.create_index("ix_news_items_published_at", "news_items", ["published_at"])
    op.create_index("ix_news_items_symbol", "news_items", ["symbol"])
    op.create_table(
        "filings",
        sa.Column("symbol", sa.String(20), primary_key=True),
        sa.Column("accession_number", sa.String(40), primary_key=True),
        sa.Column("form", sa.String(20), nullable=False),
        sa.Column("filed_date", sa.Date(), nullable=False),
        sa.Column("report_date", sa.Date()),
        sa.Column("url", sa.String(1000)),
        sa.Column("document_text", sa.Text()),
    )
    op.create_index("ix_filings_filed_date", "filings", ["filed_date"])
    op.create_table(
        "sync_failures",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("run_id", sa.String(64), nullable=False),
        sa.Column("provider", sa.String(40), nullable=False),
        sa.Column("symbol", sa.String(20), nullable=False),
        sa.Column("dataset", sa.String(40), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
    )
    op.create_index("ix_sync_failures_run_id", "sync_failures", ["run_id"])
    op.create_table(
        "sync_state",
        sa.Column("symbol", sa.String(20), primary_key=True),
        sa.Column("dataset", sa.String(40), primary_key=True),
        sa.Column("done_through", sa.Date(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sync_state")
    op.drop_table("sync_failures")
    op.drop_table("filings")
    op.drop_table("news_items")
    op.drop_table("dividends")
    op.drop_table("financial_reports")
    op.drop_table("daily_valuations")
    op.drop_table("daily_bars")
    op.drop_table("securities")
