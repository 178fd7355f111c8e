"""LLM call audit: of each call's prompt, the tokens the model evaluated and those reused from its cache.

Revision ID: 0015_llm_prompt_cache_tokens
Revises: 0014_verdict_ledger
Create Date: 2026-11-28

`llm_calls.prompt_tokens_evaluated` and `prompt_tokens_cached` come from the server's answer
(llama.cpp's `timings`, or an API's `prompt_tokens_details.cached_tokens`). Nullable: older rows,
and providers that do not say, stay NULL (unknown), never 0.
"""

import sqlalchemy as sa
from alembic import op

revision = "0015_llm_prompt_cache_tokens"
down_revision = "0014_verdict_ledger"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("llm_calls") as batch:
        batch.add_column(sa.Column("prompt_tokens_evaluated", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("prompt_tokens_cached", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("llm_calls") as batch:
        batch.drop_column("prompt_tokens_cached")
        batch.drop_column("prompt_tokens_evaluated")
