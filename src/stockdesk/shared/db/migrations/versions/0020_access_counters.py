"""Per-key request counters and in-flight leases, shared by every server process on the database.

Revision ID: 0020_access_counters
Revises: 0019_stock_splits
Create Date: 2026-11-29

`access_counters`: requests per subject (an API key or a client address), route class and minute.
`access_leases`: the requests in flight, one row per slot of a class; a lease lapses at `expires_at`
(seconds since the epoch) unless its process renews it, so a killed process's leases end by themselves.
"""

import sqlalchemy as sa
from alembic import op

revision = "0020_access_counters"
down_revision = "0019_stock_splits"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "access_counters",
        sa.Column("subject", sa.String(length=96), nullable=False),
        sa.Column("bucket", sa.String(length=16), nullable=False),
        sa.Column("minute", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("subject", "bucket", "minute", name=op.f("pk_access_counters")),
    )
    op.create_table(
        "access_leases",
        sa.Column("subject", sa.String(length=96), nullable=False),
        sa.Column("bucket", sa.String(length=16), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("lease", sa.String(length=32), nullable=False),
        sa.Column("holder", sa.String(length=32), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("subject", "bucket", "slot", name=op.f("pk_access_leases")),
    )


def downgrade() -> None:
    op.drop_table("access_leases")
    op.drop_table("access_counters")
