"""Coordinator: research sessions and their node executions.

Revision ID: 0004_research_sessions
Revises: 0003_search
Create Date: 2026-11-21

LLM calls are linked to a session through llm_calls.run_id (the session id), not a foreign key:
the audit is written by llm_platform, which knows nothing of sessions.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_research_sessions"
down_revision = "0003_search"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "research_sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("parent_session_id", sa.String(64), nullable=True),
        sa.Column("symbol", sa.String(32), nullable=False),
        sa.Column("as_of", sa.Date(), nullable=True),
        sa.Column("experts", sa.JSON(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("skip_debate", sa.Boolean(), nullable=False),
        sa.Column("debate_mode", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("duration_seconds", sa.Float(), nullable=True),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(8), nullable=True),
        sa.Column("expert_results", sa.JSON(), nullable=False),
        sa.Column("expert_errors", sa.JSON(), nullable=False),
        sa.Column("reused_experts", sa.JSON(), nullable=False),
        sa.Column("aggregation", sa.JSON(), nullable=False),
        sa.Column("debate_outcome", sa.JSON(), nullable=False),
        sa.Column("verdict", sa.JSON(), nullable=False),
        sa.Column("errors", sa.JSON(), nullable=False),
    )
    op.create_index("ix_research_sessions_parent_session_id", "research_sessions", ["parent_session_id"])
    op.create_index("ix_research_sessions_symbol", "research_sessions", ["symbol"])
    op.create_index("ix_research_sessions_status", "research_sessions", ["status"])
    op.create_index("ix_research_sessions_started_at", "research_sessions", ["started_at"])
    op.create_table(
        "research_node_executions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "session_id",
            sa.String(64),
            sa.ForeignKey("research_sessions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("node", sa.String(40), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("seconds", sa.Float(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
    )
    op.create_index("ix_research_node_executions_session_id", "research_node_executions", ["session_id"])


def downgrade() -> None:
    op.drop_table("research_node_executions")
    op.drop_table("research_sessions")
