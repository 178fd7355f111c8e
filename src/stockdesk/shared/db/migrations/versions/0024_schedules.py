"""Scheduled runs: schedules and one run per schedule and day.

Revision ID: 0024_schedules
Revises: 0023_paper_books
Create Date: 2026-11-29

`schedules`: one row per schedule (name unique): the watchlist, the time of day and zone, the days of
the week, the mode, the channels, the paper book and the digest's language. `schedule_runs`: one row
per (schedule, day), UNIQUE, so two scheduler processes cannot both run a day: the second one's
insert (its claim) fails. A run keeps its job, its status and reason, the digest's table (JSON,
compared with by the next run), the deliveries and notes.
"""

import sqlalchemy as sa
from alembic import op

revision = "0024_schedules"
down_revision = "0023_paper_books"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "schedules",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("watchlist", sa.String(length=64), nullable=False),
        sa.Column("at", sa.String(length=5), nullable=False),
        sa.Column("tz", sa.String(length=64), nullable=False),
        sa.Column("days", sa.String(length=40), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("notify_json", sa.Text(), nullable=False),
        sa.Column("paper", sa.String(length=40), nullable=True),
        sa.Column("language", sa.String(length=2), nullable=False, server_default="en"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_schedules")),
        sa.UniqueConstraint("name", name=op.f("uq_schedules_name")),
    )
    op.create_table(
        "schedule_runs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("schedule_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("job_id", sa.String(length=64), nullable=True),
        sa.Column("claimed_by", sa.String(length=200), nullable=True),
        sa.Column("fired_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("report_dir", sa.Text(), nullable=True),
        sa.Column("rows_json", sa.Text(), nullable=False),
        sa.Column("deliveries_json", sa.Text(), nullable=False),
        sa.Column("notes_json", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["schedule_id"],
            ["schedules.id"],
            name=op.f("fk_schedule_runs_schedule_id_schedules"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_schedule_runs")),
        sa.UniqueConstraint("schedule_id", "day", name=op.f("uq_schedule_runs_schedule_id_day")),
    )


def downgrade() -> None:
    op.drop_table("schedule_runs")
    op.drop_table("schedules")
