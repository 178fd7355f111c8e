"""CLI commands and REST routes of the portfolio context."""
