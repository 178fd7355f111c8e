"""Stock splits: the events that put per-share figures on the share basis of the day they are read for.

Revision ID: 0019_stock_splits
Revises: 0018_ui_sessions
Create Date: 2026-11-29

One row per (symbol, ex-date): the ratio (new shares per old), when it can be known (the ex-date
for the price data, the first filing that tags it for the filings) and which of the two it came from.
"""

import sqlalchemy as sa
from alembic import op

revision = "0019_stock_splits"
down_revision = "0018_ui_sessions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "stock_splits",
        sa.Column("symbol", sa.String(20), primary_key=True),
        sa.Column("ex_date", sa.Date(), primary_key=True),
        sa.Column("ratio", sa.Float(), nullable=False),
        sa.Column("known_date", sa.Date(), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("stock_splits")
