"""Web search: domain."""
