"""Job engine for batch work: retry backoff per task, cancel requests across processes.

Revision ID: 0013_task_backoff_cancel
Revises: 0012_strategy_splits
Create Date: 2026-11-25

`job_tasks.not_before`: a failed task with attempts left is claimed again only from this time
(exponential backoff). `jobs.cancel_reason`: set by `stockdesk jobs cancel` (any process); the
runner of the job sees it between tasks and stops, leaving unfinished tasks pending.
`jobs.owner` / `jobs.heartbeat_at`: which process runs the job (host:pid) and when it last said so,
so that reopening a job that is still running elsewhere does not take its tasks back.
"""

import sqlalchemy as sa
from alembic import op

revision = "0013_task_backoff_cancel"
down_revision = "0012_strategy_splits"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("job_tasks") as batch:
        batch.add_column(sa.Column("not_before", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("cancel_reason", sa.Text(), nullable=True))
        batch.add_column(sa.Column("owner", sa.String(length=128), nullable=True))
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("heartbeat_at")
        batch.drop_column("owner")
        batch.drop_column("cancel_reason")
    with op.batch_alter_table("job_tasks") as batch:
        batch.drop_column("not_before")
