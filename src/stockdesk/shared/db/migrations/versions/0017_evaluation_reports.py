"""Scored evaluation reports, kept so the evaluation page and the report route do not score again.

Revision ID: 0017_evaluation_reports
Revises: 0016_session_liveness
Create Date: 2026-11-29

One row per evaluation job: what it was scored from (the scoring version, its done and failed
points, a fingerprint of the bars it read up to `bars_through`) and two JSON texts, the page's
overview and the whole report.
"""

import sqlalchemy as sa
from alembic import op

revision = "0017_evaluation_reports"
down_revision = "0016_session_liveness"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "evaluation_reports",
        sa.Column("job_id", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("failed", sa.Integer(), nullable=False),
        sa.Column("bars_through", sa.Date(), nullable=True),
        sa.Column("bars", sa.String(length=64), nullable=False),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("overview", sa.Text(), nullable=False),
        sa.Column("report", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name=op.f("fk_evaluation_reports_job_id_jobs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("job_id", name=op.f("pk_evaluation_reports")),
    )


def downgrade() -> None:
    op.drop_table("evaluation_reports")
