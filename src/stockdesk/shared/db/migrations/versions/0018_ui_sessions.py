"""The web UI's sign-in sessions (sha256 of each session id) and the local user's daily token usage.

Revision ID: 0018_ui_sessions
Revises: 0017_evaluation_reports
Create Date: 2026-11-30

The UI's cookie held the API key itself; it now holds a random session id whose hash is a row of
`ui_sessions`, opened with a key (`key_id`, deleted with it) or, on a loopback server, by the UI for
the local user (`key_id` NULL). The local user's spending is counted per UTC day in
`local_token_usage`, the budget `api_key_usage` keeps for each key.
"""

import sqlalchemy as sa
from alembic import op

revision = "0018_ui_sessions"
down_revision = "0017_evaluation_reports"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ui_sessions",
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("key_id", sa.String(length=32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["key_id"], ["api_keys.id"], name=op.f("fk_ui_sessions_key_id_api_keys"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id_hash", name=op.f("pk_ui_sessions")),
    )
    op.create_index(op.f("ix_ui_sessions_key_id"), "ui_sessions", ["key_id"])
    op.create_index(op.f("ix_ui_sessions_expires_at"), "ui_sessions", ["expires_at"])
    op.create_table(
        "local_token_usage",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("day", name=op.f("pk_local_token_usage")),
    )


def downgrade() -> None:
    op.drop_table("local_token_usage")
    op.drop_index(op.f("ix_ui_sessions_expires_at"), table_name="ui_sessions")
    op.drop_index(op.f("ix_ui_sessions_key_id"), table_name="ui_sessions")
    op.drop_table("ui_sessions")
