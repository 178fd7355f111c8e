"""Watchlists and holdings (the portfolio context).

Revision ID: 0021_portfolio
Revises: 0020_access_counters
Create Date: 2026-11-29

`watchlists`: named lists; `watchlist_members`: their symbols in order; `holdings`: one position per
account and symbol with its cost price.
"""

import sqlalchemy as sa
from alembic import op

revision = "0021_portfolio"
down_revision = "0020_access_counters"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "watchlists",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_watchlists")),
        sa.UniqueConstraint("name", name=op.f("uq_watchlists_name")),
    )
    op.create_table(
        "watchlist_members",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("watchlist_id", sa.Integer(), nullable=False),
        sa.Column("symbol", sa.String(length=32), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["watchlist_id"],
            ["watchlists.id"],
            name=op.f("fk_watchlist_members_watchlist_id_watchlists"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_watchlist_members")),
        sa.UniqueConstraint("watchlist_id", "symbol", name=op.f("uq_watchlist_members_watchlist_id_symbol")),
    )
    op.create_index(
        op.f("ix_watchlist_members_watchlist_id"), "watchlist_members", ["watchlist_id"], unique=False
    )
    op.create_table(
        "holdings",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account", sa.String(length=64), nullable=False),
        sa.Column("symbol", sa.String(length=32), nullable=False),
        sa.Column("quantity", sa.Float(), nullable=False),
        sa.Column("cost_price", sa.Float(), nullable=False),
        sa.Column("opened_at", sa.Date(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_holdings")),
        sa.UniqueConstraint("account", "symbol", name=op.f("uq_holdings_account_symbol")),
    )
    op.create_index(op.f("ix_holdings_symbol"), "holdings", ["symbol"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_holdings_symbol"), table_name="holdings")
    op.drop_table("holdings")
    op.drop_index(op.f("ix_watchlist_members_watchlist_id"), table_name="watchlist_members")
    op.drop_table("watchlist_members")
    op.drop_table("watchlists")
