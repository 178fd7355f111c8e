"""Web search: infrastructure."""
