"""Strategy lab, second generation: each iteration's validation figures and returns, each run's summary.

Revision ID: 0012_strategy_splits
Revises: 0011_postgres_search_stemming
Create Date: 2026-11-25

`strategy_iterations.selection` holds what the selection sees (validation metrics and benchmark,
walk-forward folds, daily returns for PBO and the deflated Sharpe); `strategy_runs.summary` holds
the split plan, the champion's in-sample/validation/holdout figures and the overfitting statistics,
written once when the iterations are done.
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_strategy_splits"
down_revision = "0011_postgres_search_stemming"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("strategy_iterations") as batch:
        batch.add_column(sa.Column("selection", sa.JSON(), nullable=True))
    with op.batch_alter_table("strategy_runs") as batch:
        batch.add_column(sa.Column("summary", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("strategy_runs") as batch:
        batch.drop_column("summary")
    with op.batch_alter_table("strategy_iterations") as batch:
        batch.drop_column("selection")
