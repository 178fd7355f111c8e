"""Alembic environment: runs against the engine handed over by `Database` (no alembic.ini)."""

from alembic import context

from stockdesk.shared.db.base import Base

config = context.config
engine = config.attributes["engine"]

with engine.begin() as connection:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()
