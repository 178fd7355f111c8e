"""The verdict ledger: every verdict, append-only, in a sha256 hash chain.

Revision ID: 0014_verdict_ledger
Revises: 0013_task_backoff_cancel
Create Date: 2026-11-28

One row per verdict (`seq` 1, 2, 3, ...), with the canonical JSON of the verdict, its inputs' hash,
`retrospective`, and `prev_hash` / `entry_hash` (see stockdesk.ledger.domain.entry).
"""

import sqlalchemy as sa
from alembic import op

revision = "0014_verdict_ledger"
down_revision = "0013_task_backoff_cancel"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "verdict_ledger",
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("entry_id", sa.String(length=64), nullable=False),
        sa.Column("symbol", sa.String(length=32), nullable=False),
        sa.Column("as_of", sa.Date(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("mode", sa.String(length=16), nullable=False),
        sa.Column("model", sa.String(length=500), nullable=False),
        sa.Column("action", sa.String(length=8), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("position_percent", sa.Float(), nullable=False),
        sa.Column("probability_up", sa.Float(), nullable=True),
        sa.Column("session_id", sa.String(length=64), nullable=True),
        sa.Column("verdict_json", sa.Text(), nullable=False),
        sa.Column("experts_json", sa.Text(), nullable=False),
        sa.Column("inputs_hash", sa.String(length=64), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=True),
        sa.Column("retrospective", sa.Boolean(), nullable=False),
        sa.Column("prev_hash", sa.String(length=64), nullable=False),
        sa.Column("entry_hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_verdict_ledger")),
        sa.UniqueConstraint("entry_id", name=op.f("uq_verdict_ledger_entry_id")),
        sa.UniqueConstraint("prev_hash", name=op.f("uq_verdict_ledger_prev_hash")),
        sa.UniqueConstraint("entry_hash", name=op.f("uq_verdict_ledger_entry_hash")),
    )
    op.create_index(op.f("ix_verdict_ledger_symbol"), "verdict_ledger", ["symbol"])
    op.create_index(op.f("ix_verdict_ledger_session_id"), "verdict_ledger", ["session_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_verdict_ledger_session_id"), table_name="verdict_ledger")
    op.drop_index(op.f("ix_verdict_ledger_symbol"), table_name="verdict_ledger")
    op.drop_table("verdict_ledger")
