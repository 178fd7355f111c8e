"""LLM tool calls: each audited call gets an id and the tool calls it asked for; executed calls.

Revision ID: 0009_llm_tool_calls
Revises: 0008_intraday_bars
Create Date: 2026-11-25

`llm_calls.call_id` ties a call to the rows of `llm_tool_calls` that ran what it asked for
(arguments, status, result size, seconds); `stockdesk llm calls` reads both.
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_llm_tool_calls"
down_revision = "0008_intraday_bars"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("llm_calls") as batch:
        batch.add_column(sa.Column("call_id", sa.String(32), nullable=True))
        batch.add_column(sa.Column("tool_calls", sa.JSON(), nullable=True))
        batch.create_index("ix_llm_calls_call_id", ["call_id"])
    op.create_table(
        "llm_tool_calls",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("call_id", sa.String(32), nullable=False),
        sa.Column("tool_call_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("arguments", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result_chars", sa.Integer(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
    )
    op.create_index("ix_llm_tool_calls_call_id", "llm_tool_calls", ["call_id"])


def downgrade() -> None:
    op.drop_index("ix_llm_tool_calls_call_id", table_name="llm_tool_calls")
    op.drop_table("llm_tool_calls")
    with op.batch_alter_table("llm_calls") as batch:
        batch.drop_index("ix_llm_calls_call_id")
        batch.drop_column("tool_calls")
        batch.drop_column("call_id")
