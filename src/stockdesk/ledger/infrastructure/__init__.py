"""The ledger table and its serialised appends (SQLite BEGIN IMMEDIATE, PostgreSQL advisory lock)."""
