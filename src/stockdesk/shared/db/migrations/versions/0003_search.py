"""Search: full-text index over news and filing pages, the search cache and the search-call audit.

Revision ID: 0003_search
Revises: 0002_market_data
Create Date: 2026-11-21

`search_text` holds text already tokenised for indexing (CJK characters spaced out, so a
two-character word like 茅台 is a phrase of two tokens). SQLite indexes it with an FTS5
external-content table kept in sync by triggers; PostgreSQL with a GIN index on to_tsvector.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_search"
down_revision = "0002_market_data"
branch_labels = None
depends_on = None

FTS_TABLES = {"news_fts": "news_items", "filing_fts": "filing_pages"}
TOKENIZER = "porter unicode61 remove_diacritics 2"


def _sqlite_fts(fts: str, content: str) -> None:
    op.execute(
        f"CREATE VIRTUAL TABLE {fts} USING fts5(search_text, content='{content}', "
        f"content_rowid='id', tokenize='{TOKENIZER}')"
    )
    op.execute(
        f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {content} BEGIN "
        f"INSERT INTO {fts}(rowid, search_text) VALUES (new.id, new.search_text); END"
    )
    op.execute(
        f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {content} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, search_text) VALUES ('delete', old.id, old.search_text); END"
    )
    op.execute(
        f"CREATE TRIGGER {fts}_au AFTER UPDATE ON {content} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, search_text) VALUES ('delete', old.id, old.search_text); "
        f"INSERT INTO {fts}(rowid, search_text) VALUES (new.id, new.search_text); END"
    )


def upgrade() -> None:
    with op.batch_alter_table("news_items") as batch:
        batch.add_column(sa.Column("search_text", sa.Text()))
    op.create_table(
        "filing_pages",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("symbol", sa.String(20), nullable=False),
        sa.Column("accession_number", sa.String(40), nullable=False),
        sa.Column("page_no", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("search_text", sa.Text()),
        sa.UniqueConstraint(
            "symbol", "accession_number", "page_no", name="uq_filing_pages_symbol_accession_number_page_no"
        ),
    )
    op.create_table(
        "search_calls",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("run_id", sa.String(64)),
        sa.Column("provider", sa.String(40), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("freshness", sa.String(16), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("result_count", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text()),
    )
    op.create_index("ix_search_calls_created_at", "search_calls", ["created_at"])
    op.create_index("ix_search_calls_run_id", "search_calls", ["run_id"])
    op.create_table(
        "search_cache",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("response", sa.JSON(), nullable=False),
    )
    if op.get_bind().dialect.name == "sqlite":
        for fts, content in FTS_TABLES.items():
            _sqlite_fts(fts, content)
    elif op.get_bind().dialect.name == "postgresql":
        for content in FTS_TABLES.values():
            op.execute(
                f"CREATE INDEX ix_{content}_search_text ON {content} "
                "USING gin (to_tsvector('simple', coalesce(search_text, '')))"
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for fts in FTS_TABLES:
            for suffix in ("ai", "ad", "au"):
                op.execute(f"DROP TRIGGER IF EXISTS {fts}_{suffix}")
            op.execute(f"DROP TABLE IF EXISTS {fts}")
    op.drop_table("search_cache")
    op.drop_table("search_calls")
    op.drop_table("filing_pages")
    with op.batch_alter_table("news_items") as batch:
        batch.drop_column("search_text")
