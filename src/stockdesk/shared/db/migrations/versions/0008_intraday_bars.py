"""Intraday bars: the point-in-time 5-minute bar store.

Revision ID: 0008_intraday_bars
Revises: 0007_jobs_and_tasks
Create Date: 2026-11-29

One row per (symbol, bar start in UTC); the exchange-local trade_date is indexed with the symbol
because reads are point in time by it.
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_intraday_bars"
down_revision = "0007_jobs_and_tasks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bars_5m",
        sa.Column("symbol", sa.String(20), primary_key=True),
        sa.Column("ts_utc", sa.DateTime(timezone=True), primary_key=True),
        sa.Column("trade_date", sa.Date(), nullable=False),
        sa.Column("open", sa.Float(), nullable=False),
        sa.Column("high", sa.Float(), nullable=False),
        sa.Column("low", sa.Float(), nullable=False),
        sa.Column("close", sa.Float(), nullable=False),
        sa.Column("volume", sa.Float(), nullable=False),
        sa.Column("amount", sa.Float(), nullable=True),
        sa.Column("source", sa.String(40), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_bars_5m_symbol_trade_date", "bars_5m", ["symbol", "trade_date"])


def downgrade() -> None:
    op.drop_index("ix_bars_5m_symbol_trade_date", table_name="bars_5m")
    op.drop_table("bars_5m")
