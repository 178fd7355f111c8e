"""Alembic migrations (one linear history for all contexts)."""
