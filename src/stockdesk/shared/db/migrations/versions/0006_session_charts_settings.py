"""Research sessions keep their chart series and the LLM sampling settings they ran with.

Revision ID: 0006_session_charts_settings
Revises: 0005_strategy_runs
Create Date: 2026-11-25

`charts`: the series every report chart is drawn from (computed once, at analysis time), so that
`stockdesk report` re-renders a stored session without reading the market store again.
`llm_settings`: seed and sampling settings, so that a run can be reproduced.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_session_charts_settings"
down_revision = "0005_strategy_runs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.add_column(sa.Column("charts", sa.JSON(), nullable=False, server_default="[]"))
        batch.add_column(sa.Column("llm_settings", sa.JSON(), nullable=False, server_default="{}"))


def downgrade() -> None:
    with op.batch_alter_table("research_sessions") as batch:
        batch.drop_column("llm_settings")
        batch.drop_column("charts")
