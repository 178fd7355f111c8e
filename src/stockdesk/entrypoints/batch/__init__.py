"""Batch work wired to whole containers: what a worker process runs, and which engine runs it."""
