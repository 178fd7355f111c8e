"""Shared kernel: configuration, database, errors and logging used by every context."""
