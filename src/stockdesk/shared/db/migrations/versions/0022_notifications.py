"""Notification delivery attempts: one row per attempt, for idempotence, retries and channel health.

Revision ID: 0022_notifications
Revises: 0021_portfolio
Create Date: 2026-11-29

`notification_deliveries`: channel, run id, digest hash, attempt number, status (sent | retrying |
failed), the error (redacted) and when. A digest with a `sent` row for a channel is not sent again.
"""

import sqlalchemy as sa
from alembic import op

revision = "0022_notifications"
down_revision = "0021_portfolio"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notification_deliveries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("channel", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("digest_hash", sa.String(length=64), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notification_deliveries")),
    )
    op.create_index(
        "ix_notification_deliveries_channel_digest",
        "notification_deliveries",
        ["channel", "digest_hash"],
    )
    op.create_index(
        "ix_notification_deliveries_channel_status",
        "notification_deliveries",
        ["channel", "status"],
    )


def downgrade() -> None:
    op.drop_index("ix_notification_deliveries_channel_status", table_name="notification_deliveries")
    op.drop_index("ix_notification_deliveries_channel_digest", table_name="notification_deliveries")
    op.drop_table("notification_deliveries")
