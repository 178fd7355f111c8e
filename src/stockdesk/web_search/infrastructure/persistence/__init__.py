"""Web search: infrastructure/persistence."""
