"""Strategy lab: autonomous runs and their iterations.

Revision ID: 0005_strategy_runs
Revises: 0004_research_sessions
Create Date: 2026-11-21

LLM calls of an iteration are linked through llm_calls.run_id = "<run id>:<iteration>".
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_strategy_runs"
down_revision = "0004_research_sessions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "strategy_runs",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("champion_number", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
    )
    op.create_index("ix_strategy_runs_status", "strategy_runs", ["status"])
    op.create_index("ix_strategy_runs_created_at", "strategy_runs", ["created_at"])
    op.create_table(
        "strategy_iterations",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "run_id",
            sa.String(64),
            sa.ForeignKey("strategy_runs.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(24), nullable=False),
        sa.Column("params", sa.JSON(), nullable=True),
        sa.Column("reasoning", sa.Text(), nullable=True),
        sa.Column("code", sa.Text(), nullable=True),
        sa.Column("metrics", sa.JSON(), nullable=True),
        sa.Column("benchmark", sa.JSON(), nullable=True),
        sa.Column("errors", sa.JSON(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.UniqueConstraint("run_id", "number", name="uq_strategy_iterations_run_number"),
    )
    op.create_index("ix_strategy_iterations_run_id", "strategy_iterations", ["run_id"])


def downgrade() -> None:
    op.drop_index("ix_strategy_iterations_run_id", table_name="strategy_iterations")
    op.drop_table("strategy_iterations")
    op.drop_index("ix_strategy_runs_created_at", table_name="strategy_runs")
    op.drop_index("ix_strategy_runs_status", table_name="strategy_runs")
    op.drop_table("strategy_runs")
