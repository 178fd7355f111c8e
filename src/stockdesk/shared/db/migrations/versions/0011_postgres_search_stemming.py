"""PostgreSQL's full-text indexes stem English words, as SQLite's FTS5 porter tokenizer does.

Revision ID: 0011_postgres_search_stemming
Revises: 0010_api_keys
Create Date: 2026-11-30

0003 indexed `search_text` with to_tsvector('simple'): on PostgreSQL "phones" did not find
"phone" while SQLite did. The 'english' configuration stems (and leaves the spaced-out CJK
characters as single tokens). SQLite is unchanged.
"""

from alembic import op

revision = "0011_postgres_search_stemming"
down_revision = "0010_api_keys"
branch_labels = None
depends_on = None

TABLES = ("news_items", "filing_pages")


def _index(config: str) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP INDEX IF EXISTS ix_{table}_search_text")
        op.execute(
            f"CREATE INDEX ix_{table}_search_text ON {table} "
            f"USING gin (to_tsvector('{config}', coalesce(search_text, '')))"
        )


def upgrade() -> None:
    _index("english")


def downgrade() -> None:
    _index("simple")
