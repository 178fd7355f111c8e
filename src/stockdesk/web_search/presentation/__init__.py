"""Web search: presentation."""
