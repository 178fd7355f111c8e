"""Paper books: a simulated account following the rules verdicts, with its daily state.

Revision ID: 0023_paper_books
Revises: 0022_notifications
Create Date: 2026-11-29

`paper_books`: one row per book (name unique). Per book: `paper_verdicts` and `paper_orders` (a
stepped day's rules verdicts and the orders sized from them), `paper_trades` (fills and orders not
filled, with the reason), `paper_marks` (cash, positions value, equity and the benchmark at each
close) and `paper_positions` (what it holds after its last stepped day).
"""

import sqlalchemy as sa
from alembic import op

revision = "0023_paper_books"
down_revision = "0022_notifications"
branch_labels = None
depends_on = None


def _book_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["book_id"], ["paper_books.id"], name=op.f(f"fk_{table}_book_id_paper_books"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "paper_books",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("market", sa.String(length=4), nullable=False),
        sa.Column("capital", sa.Float(), nullable=False),
        sa.Column("benchmark", sa.String(length=32), nullable=True),
        sa.Column("symbols_json", sa.Text(), nullable=False),
        sa.Column("watchlist", sa.String(length=64), nullable=True),
        sa.Column("max_weight", sa.Float(), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("first_day", sa.Date(), nullable=True),
        sa.Column("last_day", sa.Date(), nullable=True),
        sa.Column("closed", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_paper_books")),
        sa.UniqueConstraint("name", name=op.f("uq_paper_books_name")),
    )
    op.create_table(
        "paper_verdicts",
        sa.Column("book_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("symbol", sa.String(length=32), nullable=False),
        sa.Column("action", sa.String(length=8), nullable=True),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        _book_fk("paper_verdicts"),
        sa.PrimaryKeyConstraint("book_id", "day", "symbol", name=op.f("pk_paper_verdicts")),
    )
    op.create_table(
        "paper_orders",
        sa.Column("book_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("symbol", sa.String(length=32), nullable=False),
        sa.Column("target_weight", sa.Float(), nullable=False),
        sa.Column("action", sa.String(length=8), nullable=False),
        _book_fk("paper_orders"),
        sa.PrimaryKeyConstraint("book_id", "day", "symbol", name=op.f("pk_paper_orders")),
    )
    op.create_table(
        "paper_trades",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("book_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("symbol", sa.String(length=32), nullable=False),
        sa.Column("side", sa.String(length=4), nullable=False),
        sa.Column("quantity", sa.Float(), nullable=False),
        sa.Column("price", sa.Float(), nullable=True),
        sa.Column("costs", sa.Float(), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("filled", sa.Boolean(), nullable=False),
        _book_fk("paper_trades"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_paper_trades")),
    )
    op.create_index("ix_paper_trades_book_day", "paper_trades", ["book_id", "day"])
    op.create_table(
        "paper_marks",
        sa.Column("book_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("cash", sa.Float(), nullable=False),
        sa.Column("positions_value", sa.Float(), nullable=False),
        sa.Column("equity", sa.Float(), nullable=False),
        sa.Column("benchmark", sa.Float(), nullable=True),
        _book_fk("paper_marks"),
        sa.PrimaryKeyConstraint("book_id", "day", name=op.f("pk_paper_marks")),
    )
    op.create_table(
        "paper_positions",
        sa.Column("book_id", sa.Integer(), nullable=False),
        sa.Column("symbol", sa.String(length=32), nullable=False),
        sa.Column("quantity", sa.Float(), nullable=False),
        sa.Column("cost", sa.Float(), nullable=False),
        sa.Column("bought_on", sa.Date(), nullable=False),
        sa.Column("price", sa.Float(), nullable=True),
        sa.Column("value", sa.Float(), nullable=False),
        _book_fk("paper_positions"),
        sa.PrimaryKeyConstraint("book_id", "symbol", name=op.f("pk_paper_positions")),
    )


def downgrade() -> None:
    op.drop_table("paper_positions")
    op.drop_table("paper_marks")
    op.drop_index("ix_paper_trades_book_day", table_name="paper_trades")
    op.drop_table("paper_trades")
    op.drop_table("paper_orders")
    op.drop_table("paper_verdicts")
    op.drop_table("paper_books")
