"""Web search: application."""
