"""Strategy runs and their iterations in the shared database."""
