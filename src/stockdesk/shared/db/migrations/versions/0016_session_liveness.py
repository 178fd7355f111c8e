"""Research sessions: which process runs a session, and when it last said it was alive.

Revision ID: 0016_session_liveness
Revises: 0015_llm_prompt_cache_tokens
Create Date: 2026-11-29

`owner` (host:pid) and `heartbeat_at` are the jobs' liveness record (shared/tasks/liveness.py) for a
session: a session left `running` by a process that died is marked `interrupted` by the next process
that opens the store, with its elapsed time up to its last heartbeat. Older rows stay NULL: a
`running` one without an owner has no live runner and is marked the same way.
"""

import sqlalchemy as sa
from alembic import op

revision = "0016_session_liveness"
down_revision = "0015_llm_prompt_cache_tokens"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.add_column(sa.Column("owner", sa.String(128), nullable=True))
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_column("heartbeat_at")
        batch.drop_column("owner")
