"""API keys (sha256 only) and their daily token usage.

Revision ID: 0010_api_keys
Revises: 0009_llm_tool_calls
Create Date: 2026-11-25
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_api_keys"
down_revision = "0009_llm_tool_calls"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "api_key_usage",
        sa.Column(
            "key_id", sa.String(32), sa.ForeignKey("api_keys.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("day", sa.Date(), primary_key=True),
        sa.Column("tokens", sa.Integer(), nullable=False, server_default="0"),
    )


def downgrade() -> None:
    op.drop_table("api_key_usage")
    op.drop_table("api_keys")
