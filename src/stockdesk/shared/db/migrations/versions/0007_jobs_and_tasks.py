"""Jobs and their tasks: the one durable job/task system for long work.

Revision ID: 0007_jobs_and_tasks
Revises: 0006_session_charts_settings
Create Date: 2026-11-28

A job is identified by (kind, config_hash); its tasks by (job_id, key), each with status, attempts,
the last error and a JSON result (see stockdesk.shared.tasks).
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_jobs_and_tasks"
down_revision = "0006_session_charts_settings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("config_hash", sa.String(64), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.UniqueConstraint("kind", "config_hash", name="uq_jobs_kind_config_hash"),
    )
    op.create_index("ix_jobs_created_at", "jobs", ["created_at"])
    op.create_table(
        "job_tasks",
        sa.Column(
            "job_id",
            sa.String(64),
            sa.ForeignKey("jobs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_job_tasks_job_id_status", "job_tasks", ["job_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_job_tasks_job_id_status", table_name="job_tasks")
    op.drop_table("job_tasks")
    op.drop_index("ix_jobs_created_at", table_name="jobs")
    op.drop_table("jobs")
